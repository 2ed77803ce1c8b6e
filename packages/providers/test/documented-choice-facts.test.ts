import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PAYMENT_METHODS, parseFiatAmount, SUPPORTED_CURRENCIES, type DocumentedAmount } from '@gateway/domain';
import { PROVIDER_MODULES } from '../src';
import { ASSUMED_TIME_TO_USDC } from '../src/support/choice-facts';

const descriptors = PROVIDER_MODULES.map(({ descriptor }) => [descriptor.id, descriptor] as const);
const https = (page: string) => new URL(page).protocol === 'https:';

describe("each provider's facts for the checkout's choice (issue 32)", () => {
  it('are declared by every adapter folder', () => {
    const folders = readdirSync(join(__dirname, '../src/adapters'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(descriptors).toHaveLength(folders.length);
  });

  it.each(descriptors)('%s: payment methods from the closed list, each currency supported, read from an https page', (_id, descriptor) => {
    expect(descriptor.methods.offered.length).toBeGreaterThan(0);
    for (const offered of descriptor.methods.offered) {
      expect(PAYMENT_METHODS).toContain(offered.method);
      for (const currency of offered.currencies ?? []) expect(SUPPORTED_CURRENCIES).toContain(currency);
    }
    expect(https(descriptor.methods.source)).toBe(true);
  });

  it.each(descriptors)('%s: a time to USDC in whole minutes from an https page, saying why when assumed', (_id, descriptor) => {
    const time = descriptor.timeToUsdc;
    expect(Number.isInteger(time.minutes) && time.minutes > 0).toBe(true);
    expect(https(time.source)).toBe(true);
    if (time.assumed !== undefined) expect(time.assumed.length).toBeGreaterThan(10);
  });

  it.each(descriptors)('%s: served countries as ISO 3166-1 alpha-2 codes from an https page, or what was looked for', (_id, descriptor) => {
    const countries = descriptor.countries;
    if ('undocumented' in countries) {
      expect(countries.undocumented.length).toBeGreaterThan(10);
      return;
    }
    const codes = 'only' in countries ? countries.only : countries.except;
    expect(https(countries.source)).toBe(true);
    for (const code of codes) expect(code).toMatch(/^[A-Z]{2}$/);
    expect(new Set(codes).size).toBe(codes.length);
    if ('only' in countries) expect(codes.length).toBeGreaterThan(0);
  });

  it.each(descriptors)('%s: limits, where documented, are amounts in a supported currency from an https page', (_id, descriptor) => {
    const limits = [descriptor.maximum, descriptor.lightChecksUpTo].filter((limit): limit is DocumentedAmount => limit !== undefined);
    for (const limit of limits) {
      expect(parseFiatAmount(limit.amount).minorUnits).toBeGreaterThan(0n);
      expect(SUPPORTED_CURRENCIES).toContain(limit.currency);
      expect(https(limit.source)).toBe(true);
    }
  });

  it('labels the shared assumed time as assumed, and documented figures carry no label', () => {
    expect(ASSUMED_TIME_TO_USDC.assumed).toBeDefined();
    const moonpay = PROVIDER_MODULES.find(({ descriptor }) => descriptor.id === 'moonpay')?.descriptor;
    expect(moonpay?.timeToUsdc).toEqual(expect.objectContaining({ minutes: 20 }));
    expect(moonpay?.timeToUsdc.assumed).toBeUndefined();
  });
});
