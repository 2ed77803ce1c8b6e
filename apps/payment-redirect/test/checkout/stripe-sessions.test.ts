import type { FastifyInstance } from 'fastify';
import { sealAddressIn, type EvmAddress } from '@gateway/domain';
import { STRIPE_FAKE_SECRET, startStripeFake, type StripeFake } from '../../../../packages/providers/test/support/stripe-fake';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';

// Stripe through payment-redirect against a local Stripe: the customer's IP goes where Stripe asks
// for it (customer_ip_address), taken from X-Forwarded-For only as far as TRUST_PROXY allows.

let fake: StripeFake;
const fixture = paymentRedirectFixture('stripe_sessions', {
  PROVIDER_STRIPE_SECRET_KEY: STRIPE_FAKE_SECRET.test,
  PROVIDER_STRIPE_WEBHOOK_SECRET: 'whsec_5f3a1c9e7b2d4f6a8c0e1b3d5f7a9c2e',
});
const temporary = '0x5555555555555555555555555555555555555555' as EvmAddress;
let addressIn = '';
let walletInserted = false;

beforeAll(async () => {
  fake = await startStripeFake();
});
afterAll(() => fake.close());

async function appBehind(trustProxy: string): Promise<FastifyInstance> {
  const config = fixture.config({ PROVIDER_STRIPE_API_URL: fake.url, TRUST_PROXY: trustProxy });
  const app = await fixture.build(config);
  if (!walletInserted) {
    await fixture.insertWallet({
      temporary,
      addressIn: sealAddressIn(temporary, config.keys),
      callbackUrl: 'https://shop.io/ipn?order=stripe',
    });
    walletInserted = true;
  }
  // Each configuration has its own address_in key.
  addressIn = sealAddressIn(temporary, config.keys);
  return app;
}

const pay = (app: FastifyInstance, forwardedFor: string) =>
  app.inject({
    method: 'GET',
    url: '/process-payment.php',
    query: { address: addressIn, amount: '25.00', provider: 'stripe', email: 'jane@shop.io', currency: 'USD' },
    headers: { accept: 'application/json', 'x-forwarded-for': forwardedFor },
    remoteAddress: '10.0.0.2',
  });

describe('stripe through payment-redirect', () => {
  it("sends the customer's address as the one proxy in front reports it, with the payment id as idempotency key", async () => {
    const app = await appBehind('1');
    const response = await pay(app, '198.51.100.23, 203.0.113.9');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.checkout_url).toMatch(/^https:\/\/crypto\.link\.com\/\?session_hash=cos_/);
    expect(body.checkout_expires_at).toBeNull();
    const request = fake.requests.at(-1)!;
    expect(request.form.get('customer_ip_address')).toBe('203.0.113.9');
    expect(request.form.get('metadata[payment_id]')).toBe(body.payment_id);
    expect(request.headers['idempotency-key']).toBe(body.payment_id);
    const { rows } = await fixture.db.pool.query('SELECT provider_reference FROM payments WHERE id = $1', [body.payment_id]);
    expect(rows[0].provider_reference).toMatch(/^cos_/);
  });

  it('without a trusted proxy, the connecting address, whatever X-Forwarded-For claims', async () => {
    const app = await appBehind('false');
    const response = await pay(app, '198.51.100.23');
    expect(response.statusCode).toBe(200);
    expect(fake.requests.at(-1)!.form.get('customer_ip_address')).toBe('10.0.0.2');
  });
});
