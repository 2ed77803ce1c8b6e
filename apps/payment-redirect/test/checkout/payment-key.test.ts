import type { FastifyInstance } from 'fastify';
import { sealAddressIn, type EvmAddress } from '@gateway/domain';
import type { PaymentRedirectConfig } from '../../src/config';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';
import { sandboxWebhook } from '../support/sandbox';

// Issue 35: a payment id (it is in the receipt URL every provider is given) is not enough to act in
// the customer's name. The checkout link and the second chance need the payment's key, which only
// the browser that started the payment holds (a cookie scoped to /payment/<id>); the second chance's
// POST must come from the gateway's own pages; second chances per payment and attempts per order are capped.

const PUBLIC_URL = 'https://pay.shop.test';
const fixture = paymentRedirectFixture('payment_key', { PUBLIC_URL });
let app: FastifyInstance;
let config: PaymentRedirectConfig;
const EMAIL = 'jane.doe@shop.io';

let walletIndex = 0;
async function newOrder(): Promise<{ addressIn: string; walletId: string }> {
  walletIndex += 1;
  const temporary = `0x${walletIndex.toString(16).padStart(40, 'c')}` as EvmAddress;
  const addressIn = sealAddressIn(temporary, config.keys);
  const { walletId } = await fixture.insertWallet({
    temporary,
    addressIn,
    callbackUrl: `https://shop.io/ipn?order=key${walletIndex}`,
    hdIndex: BigInt(walletIndex),
  });
  return { addressIn, walletId };
}

const processPayment = (addressIn: string, accept = 'text/html') =>
  app.inject({
    url: '/process-payment.php',
    query: { address: addressIn, amount: '49.99', provider: 'moonpay', email: EMAIL, currency: 'USD' },
    headers: { accept },
  });

interface Started {
  paymentId: string;
  /** The Cookie header the customer's browser sends to /payment/<id>. */
  cookie: string;
}

/** Process Payment in a browser: the payment id from the sandbox link, and the cookie it was given. */
async function startInBrowser(addressIn: string): Promise<Started> {
  const response = await processPayment(addressIn);
  expect(response.statusCode).toBe(302);
  const paymentId = new URL(response.headers.location as string).searchParams.get('payment')!;
  const cookie = response.cookies.find((c) => c.path === `/payment/${paymentId}`);
  return { paymentId, cookie: cookie ? `${cookie.name}=${cookie.value}` : '' };
}

async function decline(paymentId: string): Promise<void> {
  const response = await sandboxWebhook(app, config, { payment_id: paymentId, status: 'declined', order_id: `sbx_${paymentId}` });
  expect(response.headers['x-webhook-outcome']).toBe('updated');
}

/** The second chance's form as the receipt page renders it for `cookie`: its hidden fields. */
async function retryForm(started: Started): Promise<Record<string, string>> {
  const page = await app.inject({ url: `/payment/${started.paymentId}`, headers: started.cookie ? { cookie: started.cookie } : {} });
  const form = /<form method="post" action="[^"]+">(.*?)<\/form>/s.exec(page.body)?.[1] ?? '';
  return Object.fromEntries([...form.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]));
}

const retry = (paymentId: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: `/payment/${paymentId}/retry`,
    payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });

const paymentsOf = async (walletId: string) =>
  (await fixture.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM payments WHERE wallet_id = $1', [walletId])).rows[0]!.n;

beforeAll(async () => {
  config = fixture.config();
  app = await fixture.build(config);
});

describe('the payment key', () => {
  it('is given to the browser that started the payment: HttpOnly, Secure under https, SameSite=Lax, scoped to the payment', async () => {
    const { addressIn } = await newOrder();
    const response = await processPayment(addressIn);
    const paymentId = new URL(response.headers.location as string).searchParams.get('payment')!;
    expect(response.cookies).toEqual([
      expect.objectContaining({ path: `/payment/${paymentId}`, httpOnly: true, secure: true, sameSite: 'Lax' }),
    ]);
    const key = response.cookies[0]!.value;
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Never in the receipt URL the provider is given, and stored only as a hash.
    expect(response.headers.location).not.toContain(key);
    const { rows } = await fixture.db.pool.query('SELECT customer_key_hash FROM payments WHERE id = $1', [paymentId]);
    expect(rows[0].customer_key_hash).toHaveLength(32);
    expect(rows[0].customer_key_hash.toString('base64url')).not.toBe(key);
  });

  it('GET /payment/<id>/checkout without it: 403 and what to do, never the provider (it carries the e-mail and the wallet)', async () => {
    const { addressIn } = await newOrder();
    const started = await startInBrowser(addressIn);
    const stranger = await app.inject({ url: `/payment/${started.paymentId}/checkout`, headers: { accept: 'text/html' } });
    expect(stranger.statusCode).toBe(403);
    expect(stranger.headers.location).toBeUndefined();
    expect(stranger.body).not.toContain(EMAIL);
    expect(stranger.body).toContain('Open the payment link the shop gave you');
    const json = await app.inject({ url: `/payment/${started.paymentId}/checkout`, headers: { accept: 'application/json' } });
    expect(json.statusCode).toBe(403);
    expect(json.json()).toMatchObject({ status: 'error', code: 'payment_key_required' });
    const wrong = await app.inject({ url: `/payment/${started.paymentId}/checkout`, headers: { cookie: 'payment_key=AAAA' } });
    expect(wrong.statusCode).toBe(403);
    // The customer's own browser goes on to the provider.
    const own = await app.inject({ url: `/payment/${started.paymentId}/checkout`, headers: { cookie: started.cookie } });
    expect(own.statusCode).toBe(302);
    expect(new URL(own.headers.location as string).searchParams.get('payment')).toBe(started.paymentId);
  });

  it("a JSON client's checkout_link carries the key, and opening it gives the browser the cookie", async () => {
    const { addressIn } = await newOrder();
    const body = (await processPayment(addressIn, 'application/json')).json();
    const link = new URL(body.checkout_link);
    expect(`${link.origin}${link.pathname}`).toBe(`${PUBLIC_URL}/payment/${body.payment_id}/checkout`);
    const key = link.searchParams.get('key')!;
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.checkout_url).not.toContain(key);
    const opened = await app.inject({ url: `${link.pathname}${link.search}` });
    expect(opened.statusCode).toBe(302);
    expect(opened.cookies).toEqual([expect.objectContaining({ name: 'payment_key', value: key, path: `/payment/${body.payment_id}` })]);
    const forged = await app.inject({ url: `${link.pathname}?key=${'A'.repeat(43)}` });
    expect(forged.statusCode).toBe(403);
  });
});

describe('POST /payment/<id>/retry', () => {
  it('cross-site, without the key: 403, and no payment is recorded', async () => {
    const { addressIn, walletId } = await newOrder();
    const started = await startInBrowser(addressIn);
    await decline(started.paymentId);
    const before = await paymentsOf(walletId);
    const forged = await retry(
      started.paymentId,
      { provider: 'banxa' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    );
    expect(forged.statusCode).toBe(403);
    // A client that sends no browser headers still needs the key.
    const bare = await retry(started.paymentId, { provider: 'banxa' });
    expect(bare.statusCode).toBe(403);
    expect(bare.body).toContain('Open the payment link the shop gave you');
    expect(await paymentsOf(walletId)).toBe(before);
  });

  it('refuses another origin or a cross-site fetch even with the cookie and the form token', async () => {
    const { addressIn, walletId } = await newOrder();
    const started = await startInBrowser(addressIn);
    await decline(started.paymentId);
    const fields: Record<string, string> = { ...(await retryForm(started)), provider: 'banxa' };
    expect(fields.form_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const before = await paymentsOf(walletId);
    for (const headers of [
      { origin: 'https://evil.example' } as Record<string, string>,
      // A sandboxed frame on another site: Origin null, and the fetch metadata says where it is.
      { origin: 'null', 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: PUBLIC_URL, 'sec-fetch-site': 'cross-site' },
    ]) {
      const response = await retry(started.paymentId, fields, { cookie: started.cookie, ...headers });
      expect(response.statusCode).toBe(403);
    }
    // The cookie without the form's token (a form posted from elsewhere cannot know it), and the token without the cookie.
    expect((await retry(started.paymentId, { provider: 'banxa' }, { cookie: started.cookie, origin: PUBLIC_URL })).statusCode).toBe(403);
    expect((await retry(started.paymentId, fields, { origin: PUBLIC_URL })).statusCode).toBe(403);
    expect(await paymentsOf(walletId)).toBe(before);
    // From the receipt page itself: the new payment, with its own key for the browser.
    // From the receipt page itself (Chromium sends Origin null there: the page's Referrer-Policy is no-referrer).
    const own = await retry(started.paymentId, fields, { cookie: started.cookie, origin: 'null', 'sec-fetch-site': 'same-origin' });
    expect(own.statusCode).toBe(303);
    const next = /^\/payment\/([0-9a-f-]{36})\/continue$/.exec(own.headers.location as string)![1]!;
    const cookie = own.cookies.find((c) => c.path === `/payment/${next}`)!;
    expect(cookie).toMatchObject({ name: 'payment_key', httpOnly: true, secure: true, sameSite: 'Lax' });
    const checkout = await app.inject({ url: `/payment/${next}/checkout`, headers: { cookie: `payment_key=${cookie.value}` } });
    expect(checkout.statusCode).toBe(302);
    // The first payment's key does not open the second's checkout.
    expect((await app.inject({ url: `/payment/${next}/checkout`, headers: { cookie: started.cookie } })).statusCode).toBe(403);
  });

  it('the receipt on another device shows what happened but offers no buttons, only what to do', async () => {
    const { addressIn } = await newOrder();
    const started = await startInBrowser(addressIn);
    await decline(started.paymentId);
    const elsewhere = await app.inject({ url: `/payment/${started.paymentId}` });
    expect(elsewhere.statusCode).toBe(200);
    expect(elsewhere.body).toContain('<h1>Your card was declined</h1>');
    expect(elsewhere.body).not.toContain('<form');
    expect(elsewhere.body).toContain('in the browser you started the payment in');
    expect(await retryForm({ paymentId: started.paymentId, cookie: '' })).toEqual({});
  });

  it('allows five second chances per payment; the sixth is refused with 409', async () => {
    const { addressIn, walletId } = await newOrder();
    const started = await startInBrowser(addressIn);
    await decline(started.paymentId);
    const fields = { ...(await retryForm(started)), provider: 'banxa' };
    for (let chance = 1; chance <= 5; chance++) {
      expect((await retry(started.paymentId, fields, { cookie: started.cookie })).statusCode).toBe(303);
    }
    const sixth = await retry(started.paymentId, fields, { cookie: started.cookie });
    expect(sixth.statusCode).toBe(409);
    expect(sixth.body).toContain('tried too many times');
    expect(await paymentsOf(walletId)).toBe(6);
    // Its receipt offers no more.
    expect(await retryForm(started)).toEqual({});
    expect((await app.inject({ url: `/payment/${started.paymentId}`, headers: { cookie: started.cookie } })).body).toContain(
      'Go back to the shop to try again',
    );
  });
});

describe('Process Payment attempts per order', () => {
  it('records twenty on one order; the twenty-first is refused with 409 order_attempts_exhausted', async () => {
    const { addressIn, walletId } = await newOrder();
    for (let attempt = 1; attempt <= 20; attempt++) {
      expect((await processPayment(addressIn, 'application/json')).statusCode).toBe(200);
    }
    const refused = await processPayment(addressIn, 'application/json');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ status: 'error', code: 'order_attempts_exhausted', param: 'address' });
    expect(await paymentsOf(walletId)).toBe(20);
    // Another order is not affected.
    const other = await newOrder();
    expect((await processPayment(other.addressIn, 'application/json')).statusCode).toBe(200);
  });

  it('counts concurrent attempts exactly: of 30 at once on a fresh order, 20 are recorded', async () => {
    const { addressIn, walletId } = await newOrder();
    const answers = await Promise.all(Array.from({ length: 30 }, () => processPayment(addressIn, 'application/json')));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(20);
    expect(answers.filter((a) => a.statusCode === 409)).toHaveLength(10);
    expect(await paymentsOf(walletId)).toBe(20);
  });
});
