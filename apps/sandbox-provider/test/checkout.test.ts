import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { parse, type HTMLElement } from 'node-html-parser';
// app.metrics is declared by @gateway/http (its createServer registers the registry).
import type {} from '@gateway/http';
import { createSandboxAdapter, knownProviderTerms, signSandboxFields, SANDBOX_SIGNED_FIELDS } from '@gateway/providers';
import { startAnvil, type RunningAnvil, sleep, waitFor } from '@gateway/testkit';
import { createTestDatabase, type TestDatabase } from '@gateway/app-testkit';
import { buildSandboxProviderApp } from '../src/app';
import { loadSandboxProviderConfig } from '../src/config';
import {
  deployFundedToken,
  newSecret,
  returnedTo,
  sandboxEnv,
  signedLink,
  startWebhookReceiver,
  usdcReader,
  type SignedLink,
} from './sandbox-fixture';

const NET_USDC_FOR_49_99_EUR = 53_521_901n; // 49.99 EUR / 0.92 = 54.336956 USDC, less 1.5% (0.815055, rounded up)
const GOOD_CARD = { name: 'Jane Doe', number: '4242 4242 4242 4242', expiry: '12/39', cvc: '123' };

let anvil: RunningAnvil;
let db: TestDatabase;
let app: FastifyInstance;
let webhooks: Awaited<ReturnType<typeof startWebhookReceiver>>;
let balanceOf: ReturnType<typeof usdcReader>;
const secret = newSecret();

const page = (response: LightMyRequestResponse) => parse(response.body);
const post = (fields: Record<string, string>, contentType = 'application/x-www-form-urlencoded') =>
  app.inject({
    method: 'POST',
    url: '/checkout',
    payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': contentType },
  });
const pay = (link: SignedLink, card: Partial<typeof GOOD_CARD> = {}) => post({ ...link.params, ...GOOD_CARD, ...card });
const orderRows = async (paymentId: string) =>
  (
    await db.pool.query(
      'SELECT status, usdc_amount::text, tx_hash, raw_tx IS NOT NULL AS signed FROM sandbox_orders WHERE payment_id = $1',
      [paymentId],
    )
  ).rows;

function input(html: HTMLElement, name: string): HTMLElement {
  const element = html.querySelector(`input[name="${name}"]`);
  if (!element) throw new Error(`no input ${name}`);
  return element;
}

function expectFieldError(html: HTMLElement, id: string, message: RegExp): void {
  const field = input(html, id);
  expect(field.getAttribute('aria-invalid')).toBe('true');
  const describedBy = field.getAttribute('aria-describedby') ?? '';
  expect(html.getElementById(describedBy)?.text).toMatch(message);
}

beforeAll(async () => {
  [anvil, db] = await Promise.all([startAnvil({ chainId: 31337 }), createTestDatabase('sandbox')]);
  const token = await deployFundedToken(anvil);
  webhooks = await startWebhookReceiver(secret);
  const env = sandboxEnv({ anvil, token, secret, schema: db.schema, databaseUrl: db.connectionString, webhookBaseUrl: webhooks.baseUrl });
  app = await buildSandboxProviderApp({ config: loadSandboxProviderConfig(env), pool: db.pool, logger: false });
  balanceOf = usdcReader(anvil, token);
});

afterAll(async () => {
  await app?.close();
  await webhooks?.close();
  await db?.drop();
  await anvil?.stop();
});

describe('GET /checkout', () => {
  it('shows the order, the estimate and an accessible card form for a signed link', async () => {
    const link = signedLink(secret);
    const response = await app.inject(link.url);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    const html = page(response);

    expect(html.querySelector('.amount')?.text).toBe('49.99EUR');
    const summary = Object.fromEntries(html.querySelectorAll('dl.summary dt').map((dt) => [dt.text, dt.nextElementSibling?.text]));
    expect(summary).toEqual({
      Provider: 'MoonPay (simulated)',
      'Provider fee (1.5%)': '0.815055 USDC',
      'You get (estimated)': '53.521901 USDC',
      'USDC goes to': link.address,
      'Receipt to': 'jane@shop.io',
    });
    expect(html.querySelector('dl.summary dd span.mono')?.text).toBe(link.address);

    const form = html.querySelector('form');
    expect(form?.getAttribute('method')).toBe('post');
    expect(form?.getAttribute('action')).toBe('/checkout');
    for (const name of [...SANDBOX_SIGNED_FIELDS, 'sig']) {
      expect(input(html, name).getAttribute('type')).toBe('hidden');
      expect(input(html, name).getAttribute('value')).toBe(link.params[name]);
    }
    const expected: Array<[string, string, string, string | undefined]> = [
      ['name', 'Name on card', 'cc-name', undefined],
      ['number', 'Card number', 'cc-number', 'numeric'],
      ['expiry', 'Expiry (MM/YY)', 'cc-exp', 'numeric'],
      ['cvc', 'CVC', 'cc-csc', 'numeric'],
    ];
    for (const [name, label, autocomplete, inputmode] of expected) {
      const field = input(html, name);
      expect(field.getAttribute('id')).toBe(name);
      expect(field.getAttribute('autocomplete')).toBe(autocomplete);
      expect(field.getAttribute('inputmode')).toBe(inputmode);
      expect(field.getAttribute('value')).toBeUndefined();
      expect(html.querySelector(`label[for="${name}"]`)?.text).toBe(label);
    }
    const button = html.querySelector('form button');
    expect(button?.getAttribute('type')).toBe('submit');
    expect(button?.text).toBe('Pay 49.99 EUR');
    expect(html.querySelectorAll('.test-cards li').map((li) => li.querySelector('.mono')?.text)).toEqual([
      '4242 4242 4242 4242',
      '4000 0000 0000 0077',
      '4000 0000 0000 0002',
      '4000 0000 0000 9995',
      '4000 0000 0000 0101',
      '4000 0000 0000 0200',
      '4000 0000 0000 0309',
      '4000 0000 0000 0408',
      '4000 0000 0000 0507',
    ]);
    expect(html.querySelector('.banner')?.text).toMatch(/Test mode/);
    // CSP allows no inline script: every script is a file.
    expect(html.querySelectorAll('script').every((script) => script.getAttribute('src') && script.text === '')).toBe(true);
  });

  it('refuses an altered link, an unsigned one and one missing a field with 400', async () => {
    const link = signedLink(secret);
    const { sig: _sig, ...unsigned } = link.params;
    const { email: _email, ...missing } = link.params;
    for (const params of [{ ...link.params, amount: '4.99' }, { ...link.params, address: signedLink(secret).address }, unsigned, missing]) {
      const response = await app.inject({ url: '/checkout', query: params });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page(response).querySelector('h1')?.text).toBe('This payment link is not valid');
      expect(response.body).toContain('This payment link is not valid');
    }
  });

  it('refuses an expired link with 410', async () => {
    const response = await app.inject({ url: '/checkout', query: expiredParams() });
    expect(response.statusCode).toBe(410);
    expect(page(response).querySelector('.notice')?.text).toBe('This payment link has expired; go back to the shop and start again.');
  });

  it('answers junk with a page, never a 500', async () => {
    const link = signedLink(secret);
    const junk = [
      '/checkout',
      '/checkout?payment=1',
      '/checkout?sig=a&sig=b',
      `${link.url}&amount=1`,
      `${link.url}&${link.url.split('?')[1]}`,
      `/checkout?return_url=${'x'.repeat(100_000)}`,
      '/checkout?%E0%A4%A=1&amount=%',
      '/checkout?amount[]=1&provider[x]=2',
      `/checkout?${new URLSearchParams(resign({ ...link.params, amount: 'NaN' }))}`,
      `/checkout?${new URLSearchParams(resign({ ...link.params, provider: 'bitnovo' }))}`,
      `/checkout?${new URLSearchParams(resign({ ...link.params, return_url: 'javascript:alert(1)' }))}`,
      `/checkout?${new URLSearchParams(resign({ ...link.params, currency: 'XYZ' }))}`,
    ];
    for (const url of junk) {
      const response = await app.inject(url);
      expect({ url: url.slice(0, 80), status: response.statusCode }).toEqual({ url: url.slice(0, 80), status: 400 });
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    }
  });
});

describe('POST /checkout', () => {
  it('pays 4242 in real test USDC, tells the gateway and sends the customer on to the receipt', async () => {
    const link = signedLink(secret);
    const response = await pay(link, { expiry: '12 / 39' });
    expect(returnedTo(response)).toBe(link.returnUrl);
    expect(await balanceOf(link.address)).toBe(NET_USDC_FOR_49_99_EUR);
    const rows = await orderRows(link.paymentId);
    expect(rows).toEqual([
      { status: 'paid', usdc_amount: NET_USDC_FOR_49_99_EUR.toString(), tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/), signed: true },
    ]);
    const [hook] = await waitFor('the webhook', () => webhooks.for(link.paymentId).length > 0 && webhooks.for(link.paymentId), 5_000, 25);
    // The transaction it sent, as a provider that reports one does: it decides which attempt paid.
    expect(hook).toEqual({
      path: '/webhooks/moonpay',
      verified: true,
      body: {
        payment_id: link.paymentId,
        status: 'paid',
        order_id: `sbx_${link.paymentId.replace(/-/g, '').slice(0, 12)}`,
        tx_hash: rows[0].tx_hash,
      },
    });

    const again = await app.inject(link.url);
    expect(again.statusCode).toBe(200);
    const html = page(again);
    expect(html.querySelector('h1')?.text).toBe('Already paid');
    expect(html.querySelector('a.button')?.getAttribute('href')).toBe(link.returnUrl);
    expect(html.querySelector('form')).toBeNull();
  });

  it('pays a replayed post once, sequentially and concurrently', async () => {
    const sequential = signedLink(secret);
    for (let i = 0; i < 3; i += 1) {
      const response = await pay(sequential);
      expect(returnedTo(response)).toBe(sequential.returnUrl);
    }
    expect(await balanceOf(sequential.address)).toBe(NET_USDC_FOR_49_99_EUR);
    expect(await orderRows(sequential.paymentId)).toHaveLength(1);

    const concurrent = signedLink(secret, { amount: '20.00', currency: 'USD' });
    const responses = await Promise.all(Array.from({ length: 5 }, () => pay(concurrent)));
    expect(responses.map(returnedTo)).toEqual(Array(5).fill(concurrent.returnUrl));
    expect(await balanceOf(concurrent.address)).toBe(19_700_000n);
    expect(await orderRows(concurrent.paymentId)).toHaveLength(1);
    await waitFor("the concurrent payment's webhook", () => webhooks.for(concurrent.paymentId).length > 0, 5_000, 25);
    await sleep(200);
    expect(webhooks.for(concurrent.paymentId).map((hook) => hook.body.status)).toEqual(['paid']);
  });

  it('pays 0077 short: the card is approved, the provider reports it paid, and only 40 % of the USDC is sent', async () => {
    const link = signedLink(secret);
    const response = await pay(link, { number: '4000 0000 0000 0077' });
    expect(returnedTo(response)).toBe(link.returnUrl);
    expect(page(response).querySelector('.notice')?.text).toContain('49.99 EUR paid (test mode) and only 21.40876 USDC sent.');
    // 53.521901 × 40 %, rounded down to the base unit.
    expect(await balanceOf(link.address)).toBe(21_408_760n);
    expect(await orderRows(link.paymentId)).toEqual([
      { status: 'paid', usdc_amount: '21408760', tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/), signed: true },
    ]);
    const [hook] = await waitFor('the webhook', () => webhooks.for(link.paymentId).length > 0 && webhooks.for(link.paymentId), 5_000, 25);
    expect(hook?.body).toMatchObject({ payment_id: link.paymentId, status: 'paid' });
    // A replayed post sends nothing more.
    expect(returnedTo(await pay(link, { number: '4000 0000 0000 0077' }))).toBe(link.returnUrl);
    expect(await balanceOf(link.address)).toBe(21_408_760n);
  });

  it.each([
    ['4000 0000 0000 0002', 'Your card was declined. Try another card.', 'declined', 'card_refused'],
    ['4000000000009995', 'Your card has insufficient funds.', 'declined', 'card_refused'],
    [
      '5555 5555 5555 4444',
      'Your card was declined: this is a test checkout, so use one of the test cards below.',
      'declined',
      'card_refused',
    ],
    ['4000 0000 0000 0101', 'We could not verify your identity.', 'declined', 'identity_failed'],
    ['4000 0000 0000 0200', 'This purchase is over your limit here.', 'declined', 'over_limit'],
    ['4000 0000 0000 0309', 'This checkout is not available in your country.', 'declined', 'country_unserved'],
    ['4000 0000 0000 0408', 'The payment was cancelled before it was authorised.', 'failed', 'abandoned'],
    ['4000 0000 0000 0507', 'The payment could not be completed.', 'failed', 'other'],
  ])('refuses %s with 402, says why, sends nothing and tells the gateway the kind', async (number, message, status, declineKind) => {
    const link = signedLink(secret);
    const response = await pay(link, { number });
    expect(response.statusCode).toBe(402);
    const html = page(response);
    expect(html.querySelector('.notice.bad[role="alert"]')?.text).toBe(message);
    // The form is back for another card, with the name and expiry kept but no card number or CVC.
    expect(input(html, 'name').getAttribute('value')).toBe('Jane Doe');
    expect(input(html, 'expiry').getAttribute('value')).toBe('12/39');
    expect(input(html, 'number').getAttribute('value')).toBeUndefined();
    expect(input(html, 'cvc').getAttribute('value')).toBeUndefined();
    expect(input(html, 'sig').getAttribute('value')).toBe(link.params.sig);
    expect(await balanceOf(link.address)).toBe(0n);
    expect(await orderRows(link.paymentId)).toEqual([]);
    const [hook] = await waitFor('the webhook', () => webhooks.for(link.paymentId).length > 0 && webhooks.for(link.paymentId), 5_000, 25);
    expect(hook?.verified).toBe(true);
    expect(hook?.body).toEqual({
      payment_id: link.paymentId,
      status,
      order_id: expect.stringMatching(/^sbx_/),
      reason: message,
      decline_kind: declineKind,
    });
  });

  it.each([
    ['a card number that fails the Luhn check', { number: '4242 4242 4242 4241' }, 'number', /card number is not valid/],
    ['letters in the card number', { number: '4242 4242 abcd 4242' }, 'number', /card number is not valid/],
    ['no card number', { number: '' }, 'number', /Enter the card number/],
    ['an expiry in the past', { expiry: '01/20' }, 'expiry', /expired/],
    ['an expiry in the past, spaced', { expiry: '01 / 20' }, 'expiry', /expired/],
    ['a malformed expiry', { expiry: '13/40' }, 'expiry', /MM\/YY/],
    ['a CVC of two digits', { cvc: '12' }, 'cvc', /security code/],
    ['a CVC of five digits', { cvc: '12345' }, 'cvc', /security code/],
    ['no name', { name: '   ' }, 'name', /name on the card/],
  ])('re-renders the form with 422 for %s', async (_case, card, field, message) => {
    const link = signedLink(secret);
    const response = await pay(link, card);
    expect(response.statusCode).toBe(422);
    const html = page(response);
    expectFieldError(html, field, message);
    for (const other of ['name', 'number', 'expiry', 'cvc'].filter((name) => name !== field)) {
      expect(input(html, other).getAttribute('aria-invalid')).toBeUndefined();
    }
    expect(input(html, 'number').getAttribute('value')).toBeUndefined();
    expect(input(html, 'cvc').getAttribute('value')).toBeUndefined();
    expect(response.body).not.toContain('4242 4242 4242 4241');
    expect(await orderRows(link.paymentId)).toEqual([]);
  });

  it('never echoes the card number or CVC, and escapes what it does echo', async () => {
    const link = signedLink(secret);
    const response = await pay(link, { name: '<b>Jane</b> "x"', number: '4111 1111 1111 1112', cvc: '98' });
    expect(response.statusCode).toBe(422);
    expect(response.body).not.toMatch(/4111.?1111.?1111.?1112/);
    expect(response.body).not.toContain('"98"');
    expect(response.body).not.toContain('<b>Jane</b>');
    expect(input(page(response), 'name').getAttribute('value')).toBe('<b>Jane</b> "x"');
  });

  it('re-checks the signed fields of the form: altered 400, expired 410', async () => {
    const link = signedLink(secret);
    const altered = await post({ ...link.params, ...GOOD_CARD, address: signedLink(secret).address });
    expect(altered.statusCode).toBe(400);
    expect(altered.body).toContain('This payment link is not valid');
    const expired = await post({ ...expiredParams(), ...GOOD_CARD });
    expect(expired.statusCode).toBe(410);
    expect(await orderRows(link.paymentId)).toEqual([]);
  });

  it('answers junk posts with a page, never a 500', async () => {
    const link = signedLink(secret);
    const cases = [
      await post({}),
      await post({ ...GOOD_CARD }),
      await app.inject({ method: 'POST', url: '/checkout', payload: `${new URLSearchParams({ ...link.params, ...GOOD_CARD })}&amount=1` }),
      await app.inject({ method: 'POST', url: '/checkout', payload: { ...link.params, ...GOOD_CARD } }),
      await app.inject({
        method: 'POST',
        url: '/checkout',
        payload: 'x'.repeat(20_000),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      await post({ ...link.params, ...GOOD_CARD, number: '4'.repeat(1000) }),
    ];
    for (const response of cases) {
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.statusCode).toBeLessThan(500);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    }
    expect(await balanceOf(link.address)).toBe(0n);
  });

  it('counts outcomes in sandbox_checkouts_total', async () => {
    const metrics = await app.metrics.metrics();
    const count = (outcome: string) =>
      Number(new RegExp(`^sandbox_checkouts_total\\{outcome="${outcome}"[^}]*\\} (\\d+)$`, 'm').exec(metrics)?.[1]);
    expect(count('paid')).toBeGreaterThanOrEqual(3);
    expect(count('replayed')).toBeGreaterThanOrEqual(6);
    expect(count('declined')).toBeGreaterThanOrEqual(2);
    expect(count('insufficient_funds')).toBeGreaterThanOrEqual(1);
    expect(count('invalid_card')).toBeGreaterThanOrEqual(9);
  });
});

function resign(fields: Record<string, string>): Record<string, string> {
  return { ...fields, sig: signSandboxFields(fields, secret) };
}

function expiredParams(): Record<string, string> {
  return resign({ ...signedLink(secret).params, expires: String(Math.floor(Date.now() / 1000) - 60) });
}

describe('GET /orders/<payment id>: the order look-up', () => {
  it("answers the sandbox adapter's status(): nothing before the card, paid after it; an unsigned look-up gets 401", async () => {
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const adapter = createSandboxAdapter(knownProviderTerms('moonpay')!, { baseUrl, signingSecret: secret });
    const link = signedLink(secret);
    const signal = new AbortController().signal;
    expect(await adapter.status!({ paymentId: link.paymentId }, { signal })).toBeNull();
    await pay(link);
    // Its webhook goes out as well: let it land before the app closes.
    await waitFor('the webhook', () => webhooks.for(link.paymentId).length > 0, 5_000, 25);
    expect(await adapter.status!({ paymentId: link.paymentId }, { signal })).toEqual({
      match: { paymentId: link.paymentId },
      status: 'paid',
      rawStatus: 'paid',
      providerReference: `sbx_${link.paymentId.replace(/-/g, '').slice(0, 12)}`,
    });
    const unsigned = await app.inject(`/orders/${link.paymentId}`);
    expect(unsigned.statusCode).toBe(401);
    expect(unsigned.json()).toMatchObject({ status: 'error', code: 'unauthorized' });
    const other = createSandboxAdapter(knownProviderTerms('moonpay')!, { baseUrl, signingSecret: newSecret() });
    await expect(other.status!({ paymentId: link.paymentId }, { signal })).rejects.toThrow('HTTP 401');
  });
});
