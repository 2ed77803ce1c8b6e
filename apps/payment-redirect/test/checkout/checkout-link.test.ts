import type { FastifyInstance } from 'fastify';
import { sealAddressIn, type EvmAddress } from '@gateway/domain';
import { ProviderUnreachableError, type CheckoutOrder, type CreatedCheckout } from '@gateway/providers';
import type { PaymentRedirectConfig } from '../../src/config';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';

// Session checkouts that expire or are accepted once, form checkouts, and the customer's link
// (/payment/<id>/checkout) that reuses a live checkout and opens a fresh one otherwise.

const fixture = paymentRedirectFixture('checkout_link');
let app: FastifyInstance;
let config: PaymentRedirectConfig;
let addressIn: string;
const temporary = '0x3333333333333333333333333333333333333333' as EvmAddress;

const order = (provider: string) => ({ address: addressIn, amount: '75.00', provider, email: 'jane@shop.io', currency: 'USD' });
/** Each payment's key, as the customer's browser holds it (the cookie Process Payment set, or the key of a JSON client's link). */
const keys = new Map<string, string>();
async function pay(provider: string, accept = 'text/html') {
  const response = await app.inject({ method: 'GET', url: '/process-payment.php', query: order(provider), headers: { accept } });
  for (const cookie of response.cookies) keys.set(cookie.path!.split('/')[2]!, cookie.value);
  if (accept === 'application/json' && response.statusCode === 200) {
    const body = response.json();
    keys.set(body.payment_id, new URL(body.checkout_link).searchParams.get('key')!);
  }
  return response;
}
const open = (paymentId: string) =>
  app.inject({
    method: 'GET',
    url: `/payment/${paymentId}/checkout`,
    headers: { accept: 'text/html', cookie: `payment_key=${keys.get(paymentId) ?? ''}` },
  });

/** Stands a provider's adapter in with `make`, recording each order and idempotency key it was asked with. */
/** A form the provider accepts once, good for five minutes; its `attempt` field counts the provider's calls. */
const singleUseForm = (o: CheckoutOrder, call: number): CreatedCheckout => ({
  kind: 'form',
  action: 'https://checkout.example/payments/new',
  fields: { payment_id: o.paymentId, attempt: String(call) },
  expiresAt: Date.now() + 300_000,
  singleUse: true,
});

function provider(id: string, make: (order: CheckoutOrder, call: number) => CreatedCheckout) {
  const calls: { order: CheckoutOrder; idempotencyKey: string }[] = [];
  jest.spyOn(app.providers.adapter(id)!, 'createCheckout').mockImplementation(async (checkoutOrder, options) => {
    calls.push({ order: checkoutOrder, idempotencyKey: options.idempotencyKey });
    return make(checkoutOrder, calls.length);
  });
  return calls;
}

const session =
  (expiresInMs: number, singleUse = true) =>
  (o: CheckoutOrder, call: number): CreatedCheckout => ({
    kind: 'redirect',
    url: `https://global-stg.transak.com/?sessionId=${o.paymentId}-${call}`,
    expiresAt: Date.now() + expiresInMs,
    singleUse,
  });

beforeAll(async () => {
  config = fixture.config();
  app = await fixture.build(config);
  addressIn = sealAddressIn(temporary, config.keys);
  await fixture.insertWallet({ temporary, addressIn, callbackUrl: 'https://shop.io/ipn?order=link' });
});
afterEach(() => jest.restoreAllMocks());

describe('a single-use session that expires (Transak)', () => {
  it('JSON: says until when checkout_url is good, and gives the link that outlives it', async () => {
    const calls = provider('transak', session(300_000));
    const response = await pay('transak', 'application/json');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.checkout_url).toBe(`https://global-stg.transak.com/?sessionId=${body.payment_id}-1`);
    expect(Date.parse(body.checkout_expires_at) - Date.now()).toBeGreaterThan(290_000);
    expect(body.checkout_link).toBe(`${config.publicUrl}/payment/${body.payment_id}/checkout?key=${keys.get(body.payment_id)}`);
    expect(calls.map((call) => call.idempotencyKey)).toEqual([body.payment_id]);
  });

  it('the link opens a fresh session once the one handed out was used, each with its own idempotency key, and reuses none', async () => {
    const calls = provider('transak', session(300_000));
    const first = await pay('transak');
    expect(first.statusCode).toBe(302);
    const paymentId = new URL(first.headers.location as string).searchParams.get('sessionId')!.slice(0, 36);
    const again = await open(paymentId);
    expect(again.statusCode).toBe(302);
    expect(again.headers.location).toBe(`https://global-stg.transak.com/?sessionId=${paymentId}-2`);
    const third = await open(paymentId);
    expect(third.headers.location).toBe(`https://global-stg.transak.com/?sessionId=${paymentId}-3`);
    expect(calls.map((call) => call.idempotencyKey)).toEqual([paymentId, `${paymentId}:2`, `${paymentId}:3`]);
    // The fresh session is for the same order and wallet.
    expect(calls[2]!.order).toMatchObject({ paymentId, walletAddress: temporary, amount: '75.00', currency: 'USD', email: 'jane@shop.io' });
    const { rows } = await fixture.db.pool.query(
      'SELECT checkout_url, checkout_attempts, checkout_served_at IS NOT NULL AS served FROM payments WHERE id = $1',
      [paymentId],
    );
    expect(rows[0]).toEqual({
      checkout_url: `https://global-stg.transak.com/?sessionId=${paymentId}-3`,
      checkout_attempts: 3,
      served: true,
    });
  });

  it('a JSON client that was handed nothing usable yet: the link hands out the live session once, then a fresh one', async () => {
    // A form answered to a JSON client is not handed out: the link serves it first.
    const calls = provider('transak', singleUseForm);
    const body = (await pay('transak', 'application/json')).json();
    expect(body.checkout_url).toBe(body.checkout_link);
    expect(body.checkout_expires_at).toBeNull();
    const first = await open(body.payment_id);
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('name="attempt" value="1"');
    const second = await open(body.payment_id);
    expect(second.body).toContain('name="attempt" value="2"');
    expect(calls).toHaveLength(2);
  });

  it('a single-use session never handed out that expired: the link asks the provider for a fresh one, never the dead one', async () => {
    const calls = provider('transak', singleUseForm);
    // A JSON client gets the link for a form checkout: the session itself was handed to nobody.
    const body = (await pay('transak', 'application/json')).json();
    await fixture.db.pool.query(`UPDATE payments SET checkout_expires_at = now() - interval '1 second' WHERE id = $1`, [body.payment_id]);
    const opened = await open(body.payment_id);
    expect(opened.statusCode).toBe(200);
    expect(opened.body).toContain('name="attempt" value="2"');
    expect(calls.map((call) => call.idempotencyKey)).toEqual([body.payment_id, `${body.payment_id}:2`]);
  });
});

describe('a reusable checkout', () => {
  it('is reused on every reload while live, and renewed once within the margin of its expiry', async () => {
    const calls = provider('stripe', session(600_000, false));
    const first = await pay('stripe');
    const paymentId = new URL(first.headers.location as string).searchParams.get('sessionId')!.slice(0, 36);
    for (let reload = 0; reload < 3; reload++) {
      expect((await open(paymentId)).headers.location).toBe(first.headers.location);
    }
    expect(calls).toHaveLength(1);
    // Ten seconds left: not enough for the customer to land and pay.
    await fixture.db.pool.query(`UPDATE payments SET checkout_expires_at = now() + interval '10 seconds' WHERE id = $1`, [paymentId]);
    expect((await open(paymentId)).headers.location).toBe(`https://global-stg.transak.com/?sessionId=${paymentId}-2`);
    expect(calls).toHaveLength(2);
  });

  it('a URL that never expires (the sandbox) is reused as is', async () => {
    const first = await pay('moonpay');
    const paymentId = new URL(first.headers.location as string).searchParams.get('payment')!;
    expect((await open(paymentId)).headers.location).toBe(first.headers.location);
  });
});

describe('a form checkout', () => {
  const form = (o: CheckoutOrder): CreatedCheckout => ({
    kind: 'form',
    action: 'https://sandbox.test-simplexcc.com/payments/new',
    fields: { version: '1', payment_id: o.paymentId, return_url_success: `${o.returnUrl}?"><script>alert(1)</script>` },
  });

  it('is a page that posts it top-level: a script from this host, a button without JavaScript, form-action that origin alone', async () => {
    provider('simplex', form);
    const response = await pay('simplex');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/html/);
    expect(response.body).toContain('<form id="provider-form" method="post" action="https://sandbox.test-simplexcc.com/payments/new">');
    expect(response.body).toContain('<input type="hidden" name="version" value="1">');
    expect(response.body).toMatch(/<button class="button" type="submit">Continue to Simplex<\/button>/);
    expect(response.body).toContain('<script src="/assets/checkout-form.js" defer></script>');
    // Field values are escaped, never markup; no inline script at all.
    expect(response.body).not.toContain('<script>alert(1)');
    expect(response.body).not.toMatch(/<script>(?!<\/script>)/);
    const policy = String(response.headers['content-security-policy']);
    const directives = policy.split(';').map((directive) => directive.trim());
    expect(directives.filter((directive) => directive.startsWith('form-action'))).toEqual([
      'form-action https://sandbox.test-simplexcc.com',
    ]);
    expect(directives).toContain("script-src 'self'");
    expect(directives).toContain("frame-ancestors 'none'");
    expect(response.headers['cache-control']).toBe('no-store');
    const script = await app.inject({ url: '/assets/checkout-form.js' });
    expect(script.statusCode).toBe(200);
    expect(script.body).toContain("getElementById('provider-form')");
  });

  it('is served again by the link while it lasts, and the host keeps form-action self elsewhere', async () => {
    const calls = provider('simplex', form);
    const first = await pay('simplex');
    const paymentId = /name="payment_id" value="([0-9a-f-]{36})"/.exec(first.body)![1]!;
    const again = await open(paymentId);
    expect(again.statusCode).toBe(200);
    expect(again.body).toContain(`name="payment_id" value="${paymentId}"`);
    expect(calls).toHaveLength(1);
    const receipt = await app.inject({ url: `/payment/${paymentId}` });
    expect(String(receipt.headers['content-security-policy'])).toContain("form-action 'self'");
  });
});

describe('the link once the provider has the order, or gives no checkout', () => {
  it('sends to the receipt once the provider reported a status (a second checkout could charge twice)', async () => {
    const calls = provider('transak', session(300_000));
    const first = await pay('transak');
    const paymentId = new URL(first.headers.location as string).searchParams.get('sessionId')!.slice(0, 36);
    await fixture.db.pool.query(`UPDATE payments SET provider_status = 'pending' WHERE id = $1`, [paymentId]);
    const response = await open(paymentId);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`/payment/${paymentId}`);
    expect(calls).toHaveLength(1);
  });

  it('a provider that does not answer: the error page with the link to try again, the recorded checkout kept; unknown ids 404', async () => {
    provider('transak', session(300_000));
    const first = await pay('transak');
    const paymentId = new URL(first.headers.location as string).searchParams.get('sessionId')!.slice(0, 36);
    jest.restoreAllMocks();
    jest
      .spyOn(app.providers.adapter('transak')!, 'createCheckout')
      .mockRejectedValue(new ProviderUnreachableError('api-gateway-stg.transak.com did not answer: timed out'));
    const response = await open(paymentId);
    expect(response.statusCode).toBe(503);
    expect(response.body).toContain('Transak is not answering right now');
    expect(response.body).toContain(`id="try-again" href="/payment/${paymentId}/checkout"`);
    expect(response.body).not.toContain('id="choose-another"');
    const { rows } = await fixture.db.pool.query('SELECT status, checkout_attempts FROM payments WHERE id = $1', [paymentId]);
    expect(rows[0]).toEqual({ status: 'redirected', checkout_attempts: 1 });
    expect((await open('6f1c2b9e-4d3a-4e8b-9a7c-2f5d8e1b3c40')).statusCode).toBe(404);
    expect((await open('not-a-payment')).statusCode).toBe(404);
  });
});
