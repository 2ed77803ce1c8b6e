import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sealAddressIn, type EvmAddress } from '@gateway/domain';
import { ProviderCheckoutError, ProviderUnreachableError, verifySandboxLink } from '@gateway/providers';
import type { PaymentRedirectConfig } from '../../src/config';
import { paymentRedirectFixture, payout } from '../support/payment-redirect-fixture';

const fixture = paymentRedirectFixture('payment');
let app: FastifyInstance;
let config: PaymentRedirectConfig;
let addressIn: string;
const temporary = '0x1111111111111111111111111111111111111111' as EvmAddress;

const valid = () => ({ address: addressIn, amount: '49.99', provider: 'moonpay', email: 'jane@shop.io', currency: 'USD' });
const pay = (query: Record<string, string>, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url: '/process-payment.php', query, headers });

beforeAll(async () => {
  config = fixture.config();
  app = await fixture.build(config);
  addressIn = sealAddressIn(temporary, config.keys);
  await fixture.insertWallet({ temporary, addressIn, callbackUrl: 'https://shop.io/ipn?order=1' });
});

describe('GET /process-payment.php', () => {
  it('records the payment and redirects the browser to a signed sandbox checkout', async () => {
    const response = await pay(valid(), { accept: 'text/html,application/xhtml+xml' });
    expect(response.statusCode).toBe(302);
    const location = new URL(response.headers.location as string);
    expect(location.origin).toBe('http://127.0.0.1:3300');
    expect(location.searchParams.get('address')).toBe(temporary);
    expect(location.searchParams.get('amount')).toBe('49.99');
    expect(location.searchParams.get('currency')).toBe('USD');
    expect(verifySandboxLink(location.searchParams, config.sandbox!.signingSecret)).toMatchObject({ ok: true });
    const paymentId = location.searchParams.get('payment');
    const { rows } = await fixture.db.pool.query(
      'SELECT p.amount::text, p.currency, p.provider, p.email, p.status, w.polygon_address FROM payments p JOIN wallets w ON w.id = ' +
        'p.wallet_id WHERE p.id = $1',
      [paymentId],
    );
    expect(rows[0]).toEqual({
      amount: '49.99',
      currency: 'USD',
      provider: 'moonpay',
      email: 'jane@shop.io',
      status: 'redirected',
      polygon_address: temporary,
    });
  });

  it('answers JSON clients with the checkout URL', async () => {
    const response = await pay({ ...valid(), currency: 'EUR', amount: '20' }, { accept: 'application/json' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ status: 'success', provider: 'moonpay' });
    expect(body.checkout_url).toContain('currency=EUR');
    expect(body.payment_id).toMatch(/^[0-9a-f-]{36}$/);
    // The sandbox link lives an hour; the customer's link opens a fresh one after that.
    const expires = Number(new URL(body.checkout_url).searchParams.get('expires')) * 1000;
    expect(body.checkout_expires_at).toBe(new Date(expires).toISOString());
    // The customer's link carries the payment's key (issue 35), never the checkout URL.
    expect(body.checkout_link).toMatch(new RegExp(`^${config.publicUrl}/payment/${body.payment_id}/checkout\\?key=[A-Za-z0-9_-]{43}$`));
  });

  it('refuses a plain payout address with 400 telling to send address_in', async () => {
    const response = await pay({ ...valid(), address: payout });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'payout_address_not_accepted', param: 'address' });
    expect(response.json().error).toMatch(/address_in/);
  });

  it('refuses a token that does not open (altered, foreign key, garbage)', async () => {
    const otherKey = sealAddressIn(temporary, { current: { id: 't1', key: randomBytes(32) }, byId: new Map() });
    for (const address of [`${addressIn.slice(0, -2)}AA`, otherKey, 'hello', `${addressIn}x`]) {
      const response = await pay({ ...valid(), address });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'invalid_address_in', param: 'address' });
    }
  });

  it('refuses a valid token whose wallet this gateway does not have', async () => {
    const response = await pay({ ...valid(), address: sealAddressIn('0x2222222222222222222222222222222222222222', config.keys) });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'unknown_wallet', param: 'address' });
  });

  describe('refuses each wrong or missing parameter with a 400 naming it', () => {
    const cases: Array<[Record<string, string>, string, string]> = [
      ...['1e3', '-1', '0', 'NaN', '1,5', '1.999', ''].map((amount): [Record<string, string>, string, string] => [
        { amount },
        'amount',
        'invalid_parameter',
      ]),
      [{ amount: '19.99' }, 'amount', 'amount_below_minimum'],
      [{ provider: 'bitnovo' }, 'provider', 'provider_not_offered'],
      [{ provider: 'robinhood' }, 'provider', 'provider_not_offered'],
      [{ provider: 'cryptix' }, 'provider', 'provider_not_offered'],
      [{ provider: 'moonpai' }, 'provider', 'unsupported_provider'],
      [{ provider: 'wert', currency: 'EUR' }, 'currency', 'currency_not_allowed_for_provider'],
      [{ provider: 'interac', currency: 'USD', amount: '150' }, 'currency', 'currency_not_allowed_for_provider'],
      // Coinbase's preset amount holds in USD, CAD, GBP and EUR only.
      [{ provider: 'coinbase', currency: 'INR', amount: '5000' }, 'currency', 'currency_not_allowed_for_provider'],
      [{ provider: 'interac', currency: 'CAD', amount: '99.99' }, 'amount', 'amount_below_minimum'],
      [{ provider: 'upi', currency: 'INR', amount: '99' }, 'amount', 'amount_below_minimum'],
      [{ currency: 'XYZ' }, 'currency', 'unsupported_currency'],
      [{ currency: 'dollars' }, 'currency', 'invalid_parameter'],
      [{ email: 'not-an-email' }, 'email', 'invalid_parameter'],
    ];
    it.each(cases)('%j', async (change, param, code) => {
      const response = await pay({ ...valid(), ...change });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ status: 'error', param, code });
    });

    it('Kado, which shut down in 2025: not offered, saying why (the sandbox does not stand in for it)', async () => {
      const response = await pay({ ...valid(), provider: 'kado' });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ status: 'error', param: 'provider', code: 'provider_not_offered' });
      expect(response.json().error).toMatch(/Kado is not offered by this gateway \(Kado shut down in 2025/);
    });

    it('Robinhood, whose Connect takes no guest card: not offered, saying why (the sandbox does not stand in for it)', async () => {
      const response = await pay({ ...valid(), provider: 'robinhood' });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatch(/Robinhood is not offered by this gateway \(Robinhood Connect moves crypto out of/);
    });

    it.each(['address', 'amount', 'provider', 'email', 'currency'])('missing %s', async (name) => {
      const query: Record<string, string> = valid();
      delete query[name];
      const response = await pay(query);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'missing_parameter', param: name });
    });
  });

  it('accepts the provider-specific currencies and minimums', async () => {
    for (const query of [
      { provider: 'interac', currency: 'CAD', amount: '100' },
      { provider: 'upi', currency: 'INR', amount: '100.00' },
      { provider: 'transak', currency: 'EUR', amount: '13.80' },
      { provider: 'wert', currency: 'usd', amount: '1' },
    ]) {
      const response = await pay({ ...valid(), ...query }, { accept: 'application/json' });
      expect([query, response.statusCode]).toEqual([query, 200]);
    }
  });

  it('forbids framing on every response of the payment host, errors and 404s included', async () => {
    for (const response of [
      await pay(valid()),
      await pay({ ...valid(), amount: 'x' }),
      await app.inject({ url: '/missing' }),
      await app.inject({ url: '/healthz' }),
    ]) {
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    }
  });

  it('reports readiness and publishes its OpenAPI', async () => {
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    const doc = (await app.inject({ url: '/docs/json' })).json();
    expect(doc.paths['/process-payment.php'].get.parameters.map((p: { name: string }) => p.name)).toEqual([
      'address',
      'amount',
      'provider',
      'email',
      'currency',
    ]);
  });
});

describe('a provider that gives no checkout', () => {
  const adapter = () => app.providers.adapter('moonpay')!;
  afterEach(() => jest.restoreAllMocks());

  async function checkoutRow(paymentId: string) {
    const { rows } = await fixture.db.pool.query('SELECT status, checkout_url, checkout_error FROM payments WHERE id = $1', [paymentId]);
    return rows[0];
  }
  const lastPaymentId = async () =>
    (await fixture.db.pool.query<{ id: string }>('SELECT id FROM payments ORDER BY created_at DESC LIMIT 1')).rows[0]!.id;

  it('not answering: the customer gets a page to try again or choose another provider (503), the payment says checkout_failed', async () => {
    jest.spyOn(adapter(), 'createCheckout').mockRejectedValue(new ProviderUnreachableError('buy.moonpay.com did not answer: ECONNRESET'));
    const response = await pay(valid(), { accept: 'text/html' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toMatch(/text\/html/);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.body).toContain('MoonPay is not answering right now');
    expect(response.body).toContain('Your card has not been charged.');
    const retry = new URL(/id="try-again" href="([^"]+)"/.exec(response.body)![1]!.replaceAll('&amp;', '&'), 'https://pay.example');
    expect(retry.pathname).toBe('/process-payment.php');
    expect(Object.fromEntries(retry.searchParams)).toEqual(valid());
    const choose = new URL(/id="choose-another" href="([^"]+)"/.exec(response.body)![1]!.replaceAll('&amp;', '&'), 'https://pay.example');
    expect(choose.pathname).toBe('/pay.php');
    expect(Object.fromEntries(choose.searchParams)).toEqual({
      address: addressIn,
      amount: '49.99',
      email: 'jane@shop.io',
      currency: 'USD',
    });
    expect(await checkoutRow(await lastPaymentId())).toEqual({
      status: 'checkout_failed',
      checkout_url: null,
      checkout_error: 'unavailable: buy.moonpay.com did not answer: ECONNRESET',
    });
  });

  it('refusing: 502 with another provider offered, no retry link; JSON clients get the error shape', async () => {
    jest
      .spyOn(adapter(), 'createCheckout')
      .mockRejectedValue(new ProviderCheckoutError('session refused: 422 unsupported country', 'refused'));
    const page = await pay(valid());
    expect(page.statusCode).toBe(502);
    expect(page.body).toContain('MoonPay could not start your payment');
    expect(page.body).not.toContain('id="try-again"');
    expect(page.body).toContain('id="choose-another"');
    const json = await pay(valid(), { accept: 'application/json' });
    expect(json.statusCode).toBe(502);
    expect(json.json()).toEqual({
      status: 'error',
      code: 'provider_error',
      error: expect.stringMatching(/MoonPay could not start the checkout/),
      param: 'provider',
    });
    expect((await checkoutRow(await lastPaymentId())).status).toBe('checkout_failed');
  });

  it('failing in the adapter itself: 502, never a 500 or a stack trace', async () => {
    jest.spyOn(adapter(), 'createCheckout').mockRejectedValue(new TypeError("Cannot read properties of undefined (reading 'sign')"));
    const response = await pay(valid(), { accept: 'application/json' });
    expect(response.statusCode).toBe(502);
    expect(response.body).not.toContain('TypeError');
  });

  it('taking longer than CHECKOUT_TIMEOUT_MS: the call is aborted and the customer gets the 503 page', async () => {
    const slowConfig = fixture.config({ CHECKOUT_TIMEOUT_MS: '1000' });
    const slow = await fixture.build(slowConfig);
    let aborted = false;
    jest.spyOn(slow.providers.adapter('moonpay')!, 'createCheckout').mockImplementation(
      (_order, { signal }) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => {
            aborted = true;
            reject(new ProviderUnreachableError('given up (timed out)'));
          }),
        ),
    );
    const order = { ...valid(), address: sealAddressIn(temporary, slowConfig.keys) };
    const response = await slow.inject({
      method: 'GET',
      url: '/process-payment.php',
      query: order,
      headers: { accept: 'application/json' },
    });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ code: 'provider_unavailable', param: 'provider' });
    expect(aborted).toBe(true);
  });

  it('records the payment before asking the provider, with its reference once given', async () => {
    let statusWhileAsked: string | undefined;
    jest.spyOn(adapter(), 'createCheckout').mockImplementation(async (order) => {
      statusWhileAsked = (await checkoutRow(order.paymentId))?.status;
      return {
        kind: 'redirect',
        url: `https://buy-sandbox.moonpay.com/?externalTransactionId=${order.paymentId}`,
        providerReference: 'mp_42',
      };
    });
    const response = await pay(valid(), { accept: 'application/json' });
    expect(response.statusCode).toBe(200);
    expect(statusWhileAsked).toBe('creating');
    const { rows } = await fixture.db.pool.query('SELECT status, provider_reference FROM payments WHERE id = $1', [
      response.json().payment_id,
    ]);
    expect(rows[0]).toEqual({ status: 'redirected', provider_reference: 'mp_42' });
  });

  it('refuses a checkout URL that is not https from a real adapter', async () => {
    const sandbox = adapter();
    Object.defineProperty(sandbox, 'mode', { value: 'live', configurable: true });
    try {
      jest.spyOn(sandbox, 'createCheckout').mockResolvedValue({ kind: 'redirect', url: 'http://buy.moonpay.com/?x=1' });
      expect((await pay(valid(), { accept: 'application/json' })).statusCode).toBe(502);
    } finally {
      Object.defineProperty(sandbox, 'mode', { value: 'sandbox', configurable: true });
    }
  });
});

describe('without PostgreSQL', () => {
  it('is not ready, stays alive, and answers payments with a retryable 503', async () => {
    const { createPool } = await import('@gateway/db');
    const deadPool = createPool({ connectionString: 'postgres://postgres@127.0.0.1:1/none' });
    const isolated = await fixture.build(config, { pool: deadPool });
    expect((await isolated.inject({ url: '/healthz' })).statusCode).toBe(200);
    const ready = await isolated.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ status: 'unavailable', checks: { postgres: 'failing' } });
    const payment = await isolated.inject({ url: '/process-payment.php', query: valid() });
    expect(payment.statusCode).toBe(503);
    expect(payment.headers['retry-after']).toBe('5');
    expect(payment.json()).toEqual({ status: 'error', code: 'service_unavailable', error: expect.stringMatching(/retry/) });
    await isolated.close();
    await deadPool.end();
  });
});
