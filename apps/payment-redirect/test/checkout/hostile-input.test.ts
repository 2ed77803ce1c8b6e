import type { FastifyInstance } from 'fastify';
import { sealAddressIn, type EvmAddress } from '@gateway/domain';
import type { PaymentRedirectConfig } from '../../src/config';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';

// One wallet takes every hostile request that gets as far as a payment: more than one order's ORDER_ATTEMPTS_MAX.
const fixture = paymentRedirectFixture('pay_hostile', { ORDER_ATTEMPTS_MAX: '1000' });
let app: FastifyInstance;
let config: PaymentRedirectConfig;
let addressIn: string;
const temporary = '0x3333333333333333333333333333333333333333' as EvmAddress;

const valid = () => ({ address: addressIn, amount: '120', provider: 'moonpay', email: 'jane@shop.io', currency: 'USD' });
const pay = (query: Record<string, string>) =>
  app.inject({ method: 'GET', url: '/process-payment.php', query, headers: { accept: 'application/json' } });

beforeAll(async () => {
  config = fixture.config();
  app = await fixture.build(config);
  addressIn = sealAddressIn(temporary, config.keys);
  await fixture.insertWallet({ temporary, addressIn, callbackUrl: 'https://shop.io/ipn?order=hostile' });
});

describe('parameters are compared as ASCII only; anything else is refused, never folded', () => {
  it.each<[string, Record<string, string>, string]>([
    ['currency', { provider: 'upi', currency: '\u0131nr', amount: '100' }, 'dotless ı upper-cases to I'],
    ['currency', { currency: 'u\u017fd' }, 'long s upper-cases to S'],
    ['currency', { currency: 'USD\n' }, 'a trailing line feed'],
    ['currency', { currency: ' USD' }, 'a leading space'],
    ['currency', { currency: 'US\u0000D' }, 'a NUL'],
    ['currency', { currency: '\uff35\uff33\uff24' }, 'full-width letters'],
    ['provider', { provider: 'moonpay\n' }, 'a trailing line feed'],
    ['provider', { provider: ' moonpay' }, 'a leading space'],
    ['provider', { provider: 'moonpay\u0000' }, 'a NUL'],
    ['provider', { provider: 'transa\u212a' }, 'the Kelvin sign lower-cases to k'],
    ['provider', { provider: 'moonpay\u00a0' }, 'a no-break space'],
    ['email', { email: 'jane@shop.io\n' }, 'a trailing line feed'],
    ['email', { email: ' jane@shop.io' }, 'a leading space'],
    ['email', { email: '\u00a0jane@shop.io' }, 'a no-break space'],
    ['email', { email: 'jane@shop.io\u0000' }, 'a NUL'],
    ['email', { email: '\ufeffjane@shop.io' }, 'a byte order mark'],
  ])('%s with %j (%s): 400 naming it, nothing recorded', async (param, change) => {
    const before = (await fixture.db.pool.query('SELECT count(*)::int AS n FROM payments')).rows[0].n;
    const response = await pay({ ...valid(), ...change });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error', param });
    expect((await fixture.db.pool.query('SELECT count(*)::int AS n FROM payments')).rows[0].n).toBe(before);
  });

  it('still takes ASCII in any case', async () => {
    for (const change of [
      { currency: 'usd' },
      { currency: 'Usd' },
      { provider: 'MoonPay' },
      { provider: 'upi', currency: 'inr', amount: '100' },
    ]) {
      const response = await pay({ ...valid(), ...change });
      expect([change, response.statusCode]).toEqual([change, 200]);
    }
    const { rows } = await fixture.db.pool.query(`SELECT DISTINCT provider, currency FROM payments ORDER BY 1, 2`);
    expect(rows).toEqual([
      { provider: 'moonpay', currency: 'USD' },
      { provider: 'upi', currency: 'INR' },
    ]);
  });
});

describe('a payment row PostgreSQL refuses fails alone, the rest of its batch is recorded', () => {
  beforeAll(async () => {
    // A payment that passes every check of the API and that the database still refuses.
    await fixture.db.pool.query(`ALTER TABLE payments ADD CONSTRAINT test_refuses_marked CHECK (position('refused-by-db' in email) = 0)`);
  });
  afterAll(async () => {
    await fixture.db.pool.query('ALTER TABLE payments DROP CONSTRAINT test_refuses_marked');
  });

  it('40 honest payments beside one the database refuses, three rounds: 40 recorded, one 500 of its own', async () => {
    for (let round = 0; round < 3; round += 1) {
      const emails = Array.from({ length: 41 }, (_, i) => (i === 20 ? `refused-by-db-${round}@shop.io` : `jane-${round}-${i}@shop.io`));
      const responses = await Promise.all(emails.map((email) => pay({ ...valid(), email })));
      const statuses = responses.map((r) => r.statusCode);
      expect(statuses.filter((s) => s === 200)).toHaveLength(40);
      expect(statuses[20]).toBe(500);
      expect(responses[20]!.json()).toMatchObject({ status: 'error', code: 'internal_error' });
      const { rows } = await fixture.db.pool.query('SELECT count(*)::int AS n FROM payments WHERE email LIKE $1', [`jane-${round}-%`]);
      expect(rows[0].n).toBe(40);
    }
  });
});
