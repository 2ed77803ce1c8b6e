// The payment host's HTTP rules: which methods each route takes, HEAD without side effects, Accept
// negotiation for Process Payment, and /metrics kept off the public port.
import type { FastifyInstance } from 'fastify';
import { sealAddressIn, type EvmAddress } from '@gateway/domain';
import { createMetricsServer } from '@gateway/http';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';

const fixture = paymentRedirectFixture('http_layer');
let app: FastifyInstance;
let addressIn: string;
const temporary = '0x3333333333333333333333333333333333333333' as EvmAddress;

const order = () => ({ address: addressIn, amount: '49.99', provider: 'moonpay', email: 'jane@shop.io', currency: 'USD' });
const pay = (headers: Record<string, string> = {}, method: 'GET' | 'HEAD' | 'POST' = 'GET') =>
  app.inject({ method, url: '/process-payment.php', query: order(), headers });
const paymentCount = async () => Number((await fixture.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM payments')).rows[0]?.n);

beforeAll(async () => {
  const config = fixture.config();
  app = await fixture.build(config);
  addressIn = sealAddressIn(temporary, config.keys);
  await fixture.insertWallet({ temporary, addressIn, callbackUrl: 'https://shop.io/ipn?order=http' });
});

describe('HEAD', () => {
  it('on Process Payment records no payment: 405 with Allow: GET', async () => {
    const before = await paymentCount();
    for (const accept of ['text/html', 'application/json']) {
      const response = await pay({ accept }, 'HEAD');
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe('GET');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.body).toBe('');
    }
    expect(await paymentCount()).toBe(before);
  });

  it('on the read-only pages (hosted checkout, receipt) answers as GET would, without a body', async () => {
    const checkout = await app.inject({
      method: 'HEAD',
      url: '/pay.php',
      query: { address: addressIn, amount: '49.99', email: 'jane@shop.io', currency: 'USD' },
    });
    expect(checkout.statusCode).toBe(200);
    expect(checkout.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(checkout.headers['x-frame-options']).toBe('DENY');
    expect(checkout.body).toBe('');

    const paymentId = (await pay({ accept: 'application/json' })).json().payment_id as string;
    const before = await paymentCount();
    const receipt = await app.inject({ method: 'HEAD', url: `/payment/${paymentId}` });
    expect(receipt.statusCode).toBe(200);
    expect(receipt.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(receipt.body).toBe('');
    expect((await app.inject({ method: 'HEAD', url: '/payment/no-such-payment' })).statusCode).toBe(404);
    expect(await paymentCount()).toBe(before);
  });
});

describe('methods', () => {
  it('answers a wrong method with 405 and Allow; unknown paths stay 404', async () => {
    const post = await pay({}, 'POST');
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET');
    expect(post.json()).toMatchObject({ status: 'error', code: 'method_not_allowed' });
    const getWebhook = await app.inject({ method: 'GET', url: '/webhooks/sandbox' });
    expect(getWebhook.statusCode).toBe(405);
    expect(getWebhook.headers.allow).toBe('POST');
    const putReceipt = await app.inject({ method: 'PUT', url: '/payment/abc' });
    expect(putReceipt.statusCode).toBe(405);
    expect(putReceipt.headers.allow).toBe('GET, HEAD');
    expect((await app.inject({ method: 'POST', url: '/nope.php' })).statusCode).toBe(404);
  });
});

describe('Process Payment: Accept negotiation', () => {
  it.each([
    ['application/json', 'json'],
    ['application/json;q=0.9, text/plain;q=0.1', 'json'],
    ['application/*', 'json'],
    ['application/json;q=0', 'redirect'],
    ['application/json; q=0.0, text/html', 'redirect'],
    ['*/*', 'redirect'],
    ['text/html,application/json;q=0.9', 'redirect'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'redirect'],
    ['', 'redirect'],
  ])('Accept: %j gets the %s', async (accept, expected) => {
    const response = await pay(accept === '' ? {} : { accept });
    if (expected === 'json') {
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ status: 'success', checkout_url: expect.any(String) });
    } else {
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toMatch(/^http:\/\/127\.0\.0\.1:3300\//);
    }
    expect(response.headers.vary).toMatch(/accept/i);
  });
});

describe('metrics', () => {
  it('are not on the public port; the metrics server has them', async () => {
    expect((await app.inject({ url: '/metrics' })).statusCode).toBe(404);
    const metricsServer = await createMetricsServer(app);
    try {
      const body = (await metricsServer.inject({ url: '/metrics' })).body;
      expect(body).toContain('route="/process-payment.php"');
      expect(body).toContain('payment_redirect_provider_webhooks_total');
    } finally {
      await metricsServer.close();
    }
  });
});
