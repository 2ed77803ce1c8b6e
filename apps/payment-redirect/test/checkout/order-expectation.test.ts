import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sealAddressIn, type EvmAddress } from '@gateway/domain';
import { SANDBOX_PROVIDER_FEE_BPS } from '@gateway/providers';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';

// EUR at 0.8 per USD: 40 EUR is 50 USD.
const RATES = { base: 'USD', rates: { EUR: '0.8' } };
const temporary = '0x4444444444444444444444444444444444444444' as EvmAddress;

const fixture = paymentRedirectFixture('order_expectation');
let app: FastifyInstance;
let addressIn: string;

async function buildApp(settings: Record<string, string>): Promise<FastifyInstance> {
  const dir = mkdtempSync(join(tmpdir(), 'order-expectation-'));
  const file = join(dir, 'rates.json');
  writeFileSync(file, JSON.stringify(RATES));
  const config = fixture.config({ RATE_SOURCE: 'file', RATE_FILE: file, ...settings });
  addressIn = sealAddressIn(temporary, config.keys);
  return fixture.build(config);
}

async function pay(query: Record<string, string>): Promise<Record<string, unknown>> {
  const response = await app.inject({
    method: 'GET',
    url: '/process-payment.php',
    query: { address: addressIn, provider: 'moonpay', email: 'jane@shop.io', ...query },
    headers: { accept: 'application/json' },
  });
  expect(response.statusCode).toBe(200);
  const { rows } = await fixture.db.pool.query(
    `SELECT amount_usd::text, usd_rate, usd_rate_source, expected_usdc::text, expected_basis, tolerance_bps,
            extract(epoch FROM window_ends_at - created_at)::int AS window_seconds
     FROM payments WHERE id = $1`,
    [response.json().payment_id],
  );
  return rows[0];
}

beforeAll(async () => {
  await fixture.insertWallet({ temporary, addressIn: 'unused', callbackUrl: 'https://shop.io/ipn?order=expectation' });
});

describe('Process Payment records what each attempt should bring', () => {
  // The sandbox stands in for MoonPay here: the expectation is the sandbox's, whose fee the USDC really bears.
  const feeBps = SANDBOX_PROVIDER_FEE_BPS;

  it("values a USD order as itself, less the fee of the checkout's provider, judged from the fee range", async () => {
    app = await buildApp({});
    expect(await pay({ amount: '50.00', currency: 'USD' })).toEqual({
      amount_usd: '50.00',
      usd_rate: '1',
      usd_rate_source: 'usd',
      expected_usdc: String((50_000_000n * BigInt(10_000 - feeBps)) / 10_000n),
      expected_basis: 'estimate',
      tolerance_bps: 100,
      window_seconds: 24 * 3600,
    });
  });

  it("values another currency at the rate of the moment and records the rate, with the operator's tolerance and window", async () => {
    app = await buildApp({ ORDER_TOLERANCE_BPS: '40', ORDER_WINDOW_HOURS: '2' });
    expect(await pay({ amount: '40.00', currency: 'EUR' })).toEqual({
      amount_usd: '50.00',
      usd_rate: '0.8',
      usd_rate_source: 'file',
      expected_usdc: String((50_000_000n * BigInt(10_000 - feeBps)) / 10_000n),
      expected_basis: 'estimate',
      tolerance_bps: 40,
      window_seconds: 2 * 3600,
    });
  });

  it.each([
    ['ORDER_TOLERANCE_BPS', '5001'],
    ['ORDER_TOLERANCE_BPS', '-1'],
    ['ORDER_WINDOW_HOURS', '0'],
  ])('refuses to boot with %s=%s, naming the setting', (name, value) => {
    expect(() => fixture.config({ [name]: value })).toThrow(new RegExp(name));
  });
});
