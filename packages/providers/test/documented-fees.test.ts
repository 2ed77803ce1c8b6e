import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expectUsdc } from '@gateway/domain';
import { PROVIDER_MODULES } from '../src';

const ONE_HUNDRED_USDC = 100_000_000n;

describe("each provider's documented card fees", () => {
  it('are declared by every adapter folder', () => {
    const folders = readdirSync(join(__dirname, '../src/adapters'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(PROVIDER_MODULES).toHaveLength(folders.length);
  });

  it.each(PROVIDER_MODULES.map(({ descriptor }) => [descriptor.id, descriptor.fees] as const))(
    '%s: whole basis points, 0 <= min <= max < 10000, read from an https page',
    (_id, fees) => {
      expect(Number.isInteger(fees.minBps)).toBe(true);
      expect(Number.isInteger(fees.maxBps)).toBe(true);
      expect(fees.minBps).toBeGreaterThanOrEqual(0);
      expect(fees.maxBps).toBeGreaterThanOrEqual(fees.minBps);
      expect(fees.maxBps).toBeLessThan(10_000);
      expect(new URL(fees.source).protocol).toBe('https:');
    },
  );

  it.each(PROVIDER_MODULES.map(({ descriptor }) => [descriptor.id, descriptor.fees] as const))(
    '%s: the order rule estimates 100 USD within the range',
    (_id, fees) => {
      const expected = expectUsdc({ usdCents: 10_000n, fees });
      expect(expected.basis).toBe('estimate');
      expect(expected.usdc).toBeGreaterThanOrEqual((ONE_HUNDRED_USDC * BigInt(10_000 - fees.maxBps)) / 10_000n);
      expect(expected.usdc).toBeLessThanOrEqual((ONE_HUNDRED_USDC * BigInt(10_000 - fees.minBps)) / 10_000n);
    },
  );
});
