import { createHmac } from 'node:crypto';
import { MockAgent } from 'undici';
import { CONTRACT_NOW_MS, contractContext, describeAdapterContract, sampleOrder } from '../../../test/support/adapter-contract';
import { ProviderWebhookError, type ProviderMode } from '../../provider-contract';
import { createProviderHttpClient } from '../../support/provider-http-client';
import { banxa, banxaWebhookSignature, type BanxaSettings } from './banxa-adapter';
import { banxaOrderEvent } from './banxa-webhook';
import { redirectCheckout } from '../../../test/support/checkout-target';

// Three different credentials per mode, as Banxa issues them: the v2 API key (x-api-key of Get Order) and the HMAC pair
// (the key named in a webhook's Authorization, the secret it is signed with).
const settings: Record<ProviderMode, BanxaSettings> = {
  live: {
    PARTNER_REF: 'shoppay',
    API_KEY: 'banxa-live-x-api-key-0123',
    HMAC_KEY: 'banxa-live-hmac-key-89ab',
    HMAC_SECRET: 'banxa-live-hmac-secret-4567',
  },
  test: {
    PARTNER_REF: 'shoppay',
    API_KEY: 'banxa-sandbox-x-api-key-0123',
    HMAC_KEY: 'banxa-sandbox-hmac-key-89ab',
    HMAC_SECRET: 'banxa-sandbox-hmac-secret-4567',
  },
};
const API_ORIGINS: Record<ProviderMode, string> = { live: 'https://api.banxa.com', test: 'https://api.banxa-sandbox.com' };
const WALLET = sampleOrder('EUR').walletAddress;
const NATIVE_USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

/** Banxa's HMAC as its docs and SDKs describe it, written here with node:crypto: lines joined by "\n", hex digest. */
function banxaHmac(secret: string, lines: readonly string[]): string {
  return createHmac('sha256', secret).update(lines.join('\n')).digest('hex');
}

/** An order as Get Order (Hosted Checkout v2) returns it. */
function banxaOrder(id: string, status: string, overrides: Record<string, unknown> = {}) {
  return {
    id,
    externalId: 'a4b427ccb872a1744b317456bd0d165f',
    orderType: 'BUY',
    status,
    createdAt: '2026-11-25T11:50:00.000Z',
    updatedAt: '2026-11-25T11:59:00.000Z',
    crypto: { id: 'USDC', blockchain: 'MATIC', address: NATIVE_USDC, network: '137' },
    fiat: 'EUR',
    fiatAmount: '149.99',
    cryptoAmount: '158.20',
    paymentMethodName: 'debit-credit-card',
    walletAddress: WALLET,
    ...overrides,
  };
}

interface RecordedRequest {
  path: string;
  apiKey: string | undefined;
}

/**
 * A local Banxa API behind undici's MockAgent: Get Order answers only with the mode's API key
 * in `x-api-key`, as the Hosted Checkout docs require, and 401 otherwise. Nothing reaches the network.
 */
function fakeBanxa(mode: ProviderMode) {
  const orders = new Map<string, object>();
  const requests: RecordedRequest[] = [];
  const agent = new MockAgent();
  agent.disableNetConnect();
  const prefix = `/${settings[mode].PARTNER_REF}/v2/orders/`;
  agent
    .get(API_ORIGINS[mode])
    .intercept({ path: (path) => path.startsWith(prefix), method: 'GET' })
    .reply((request) => {
      const apiKey = headerOf(request.headers, 'x-api-key');
      requests.push({ path: request.path, apiKey });
      if (apiKey !== settings[mode].API_KEY) return { statusCode: 401, data: { message: 'Unauthorized' } };
      const order = orders.get(decodeURIComponent(request.path.slice(prefix.length)));
      return order ? { statusCode: 200, data: order } : { statusCode: 404, data: { message: 'Order not found' } };
    })
    .persist();
  return { orders, requests, agent, http: createProviderHttpClient({ dispatcher: agent, maxAttempts: 1 }) };
}

function headerOf(headers: unknown, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) if (String(headers[i]).toLowerCase() === name) return String(headers[i + 1]);
    return undefined;
  }
  const record = (headers ?? {}) as Record<string, unknown>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : String(record[key]);
}

const fakes: Record<ProviderMode, ReturnType<typeof fakeBanxa>> = { live: fakeBanxa('live'), test: fakeBanxa('test') };
afterAll(async () => {
  await Promise.all(Object.values(fakes).map(async (fake) => fake.agent.close()));
});

/** Banxa's order webhook (v2 payload), signed over our webhook path with node:crypto directly. */
function banxaWebhook(body: unknown, mode: ProviderMode, nonce: string, path = '/webhooks/banxa') {
  const raw = JSON.stringify(body);
  const signature = banxaHmac(settings[mode].HMAC_SECRET, ['POST', path, nonce, raw]);
  return { rawBody: Buffer.from(raw), headers: { authorization: `Bearer ${settings[mode].HMAC_KEY}:${signature}:${nonce}` } };
}

function orderWebhookBody(orderId: string, status: string, orderType = 'BUY') {
  return {
    order_id: orderId,
    status,
    status_date: '2026-11-25 11:59:00',
    created_at: '2026-11-25 11:50:00',
    updated_at: '2026-11-25 11:59:00',
    external_id: null,
    order_type: orderType,
    crypto_coin: 'USDC',
    crypto_blockchain: 'MATIC',
    crypto_amount: '158.2000000000000000',
    fiat_currency: 'EUR',
    fiat_amount: '149.99',
    payment_method: 'debit-credit-card',
    transaction_hash: '0',
    metadata: [],
  };
}

describeAdapterContract({
  module: banxa,
  settings,
  context: (mode) => ({ http: fakes[mode].http }),
  // The referral URL takes no order reference: our id is the last segment of the receipt page in returnUrl.
  readCheckout: { wallet: 'walletAddress', amount: 'fiatAmount', currency: 'fiatType', receiptIn: 'returnUrl' },
  signWebhook: ({ walletAddress, status }, nowMs) => {
    const orderId = status === 'paid' ? 'd9efc5d228cb7edfc4b6bb82f7b39f94' : 'e82c57b2cba367069dfef4f866c7bc87';
    const orderStatus = status === 'paid' ? 'complete' : 'expired';
    fakes.live.orders.set(orderId, banxaOrder(orderId, orderStatus, { walletAddress }));
    return banxaWebhook(orderWebhookBody(orderId, orderStatus), 'live', String(nowMs));
  },
  webhookSignature: { header: 'authorization', encoding: 'hex', part: /(?<=^Bearer [^:]+:)[^:]*/ },
  // The signed webhook only names the order: whatever it holds, Banxa's Get Order answers for the id it names.
  hostile: {
    payload: () => orderWebhookBody('e82c57b2cba367069dfef4f866c7bc87', 'declined'),
    sign: (payload, nowMs) => {
      const orderId = (payload as { order_id?: unknown } | null)?.order_id;
      if (typeof orderId === 'string') fakes.live.orders.set(orderId, banxaOrder(orderId, 'declined'));
      return banxaWebhook(payload, 'live', String(nowMs));
    },
  },
});

describe('banxa HMAC', () => {
  // BanxaOfficial/php-sdk tests/Unit/Authentication/AuthenticationTest.php (the POST one also in node-sdk).
  it("reproduces Banxa's published POST vector with the adapter's signing", () => {
    expect(banxaWebhookSignature('accessKeySecret', 'foo/bar', '-1', Buffer.from('{"test":"data"}'))).toBe(
      'dc0327c28375f930d145cd2545e1fc68f40d008ffbdd80d4f807d4c20d3ef6d3',
    );
  });

  it("the test's own signer reproduces both published vectors (POST with body, GET without)", () => {
    expect(banxaHmac('accessKeySecret', ['POST', 'foo/bar', '-1', '{"test":"data"}'])).toBe(
      'dc0327c28375f930d145cd2545e1fc68f40d008ffbdd80d4f807d4c20d3ef6d3',
    );
    expect(banxaHmac('accessKeySecret', ['GET', 'foo/bar', '-1'])).toBe('f4fb557cc803ebeef51b6062389b7143602fa0c076eb8542385a570cba09ef3a');
  });
});

describe('banxa webhook', () => {
  const orderId = '3526ccb0e20f31de92aec732c37bb683';
  const build = (mode: ProviderMode, now = CONTRACT_NOW_MS) =>
    banxa.create(settings[mode], contractContext('banxa', mode, { http: fakes[mode].http, now: () => now }));

  beforeEach(() => {
    for (const fake of Object.values(fakes)) fake.requests.length = 0;
    fakes.live.orders.set(orderId, banxaOrder(orderId, 'complete'));
    fakes.test.orders.set(orderId, banxaOrder(orderId, 'complete'));
  });

  it.each(['live', 'test'] as const)(
    '%s: reads the order back from Get Order with x-api-key and records what the order says',
    async (mode) => {
      // The webhook says "pendingPayment"; the order read back says "complete": the order wins.
      const webhook = banxaWebhook(orderWebhookBody(orderId, 'pendingPayment'), mode, String(CONTRACT_NOW_MS));
      const outcome = await (await build(mode)).verifyWebhook(webhook.rawBody, webhook.headers);
      expect(outcome).toMatchObject({
        kind: 'event',
        event: {
          status: 'paid',
          rawStatus: 'complete',
          providerReference: orderId,
          match: { providerReference: orderId, walletAddress: WALLET },
        },
        acknowledgement: { statusCode: 200 },
      });
      expect(fakes[mode].requests).toEqual([{ path: `/shoppay/v2/orders/${orderId}`, apiKey: settings[mode].API_KEY }]);
    },
  );

  it.each([
    ['seconds', String(Math.floor(CONTRACT_NOW_MS / 1000))],
    ['milliseconds', String(CONTRACT_NOW_MS)],
    ['microseconds', `${CONTRACT_NOW_MS}123`],
  ])('accepts a fresh nonce in %s and refuses it an hour old', async (_unit, nonce) => {
    const webhook = banxaWebhook(orderWebhookBody(orderId, 'complete'), 'live', nonce);
    await expect((await build('live')).verifyWebhook(webhook.rawBody, webhook.headers)).resolves.toMatchObject({ kind: 'event' });
    await expect((await build('live', CONTRACT_NOW_MS + 3_600_000)).verifyWebhook(webhook.rawBody, webhook.headers)).rejects.toBeInstanceOf(
      ProviderWebhookError,
    );
  });

  it('refuses a signature over a Banxa API path instead of our webhook path, another API key, and another secret', async () => {
    const adapter = await build('live');
    const nonce = String(CONTRACT_NOW_MS);
    const overApiPath = banxaWebhook(orderWebhookBody(orderId, 'complete'), 'live', nonce, '/api/orders');
    await expect(adapter.verifyWebhook(overApiPath.rawBody, overApiPath.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    const good = banxaWebhook(orderWebhookBody(orderId, 'complete'), 'live', nonce);
    const otherKey = { authorization: String(good.headers.authorization).replace(settings.live.HMAC_KEY, 'someone-elses-key') };
    await expect(adapter.verifyWebhook(good.rawBody, otherKey)).rejects.toBeInstanceOf(ProviderWebhookError);
    // The v2 API key is not the HMAC key: a webhook naming it, or signed with it as the secret, is refused.
    const namingApiKey = { authorization: String(good.headers.authorization).replace(settings.live.HMAC_KEY, settings.live.API_KEY) };
    await expect(adapter.verifyWebhook(good.rawBody, namingApiKey)).rejects.toThrow(/another API key/);
    const raw = JSON.stringify(orderWebhookBody(orderId, 'complete'));
    const keyedByApiKey = banxaHmac(settings.live.API_KEY, ['POST', '/webhooks/banxa', nonce, raw]);
    const signedWithApiKey = { authorization: `Bearer ${settings.live.HMAC_KEY}:${keyedByApiKey}:${nonce}` };
    await expect(adapter.verifyWebhook(Buffer.from(raw), signedWithApiKey)).rejects.toThrow(/does not match/);
    const bySandboxSecret = banxaWebhook(orderWebhookBody(orderId, 'complete'), 'test', nonce);
    const sandboxSignature = String(bySandboxSecret.headers.authorization).split(':')[1];
    const forged = { authorization: `Bearer ${settings.live.HMAC_KEY}:${sandboxSignature}:${nonce}` };
    await expect(adapter.verifyWebhook(good.rawBody, forged)).rejects.toBeInstanceOf(ProviderWebhookError);
    expect(fakes.live.requests).toEqual([]);
  });

  it('ignores authentic KYC and sell webhooks without calling Banxa', async () => {
    const adapter = await build('live');
    const nonce = String(CONTRACT_NOW_MS);
    const kyc = banxaWebhook({ event: 'kyc.updated', external_customer_id: 'c-42', status: 'approved' }, 'live', nonce);
    await expect(adapter.verifyWebhook(kyc.rawBody, kyc.headers)).resolves.toMatchObject({
      kind: 'ignored',
      acknowledgement: { statusCode: 200 },
    });
    const sell = banxaWebhook(orderWebhookBody(orderId, 'complete', 'SELL'), 'live', nonce);
    await expect(adapter.verifyWebhook(sell.rawBody, sell.headers)).resolves.toMatchObject({ kind: 'ignored' });
    expect(fakes.live.requests).toEqual([]);
  });

  it('fails (so Banxa sends it again) when Get Order refuses our key (the HMAC key given as the API key) or knows no such order', async () => {
    const nonce = String(CONTRACT_NOW_MS);
    const wrongKey = banxa.create(
      { ...settings.live, API_KEY: settings.live.HMAC_KEY },
      contractContext('banxa', 'live', { http: fakes.live.http }),
    );
    const webhook = banxaWebhook(orderWebhookBody(orderId, 'complete'), 'live', nonce);
    const refused = (await wrongKey).verifyWebhook(webhook.rawBody, webhook.headers);
    await expect(refused).rejects.toThrow(/HTTP 401/);
    await expect(refused).rejects.not.toBeInstanceOf(ProviderWebhookError);
    const unknown = banxaWebhook(orderWebhookBody('ffffffffffffffffffffffffffffffff', 'complete'), 'live', nonce);
    await expect((await build('live')).verifyWebhook(unknown.rawBody, unknown.headers)).rejects.toThrow(/HTTP 404/);
  });

  it('refuses to trust an order answered for another id', async () => {
    fakes.live.orders.set(orderId, banxaOrder('0000aaaa0000aaaa0000aaaa0000aaaa', 'complete'));
    const webhook = banxaWebhook(orderWebhookBody(orderId, 'complete'), 'live', String(CONTRACT_NOW_MS));
    await expect((await build('live')).verifyWebhook(webhook.rawBody, webhook.headers)).rejects.toThrow(/another order/);
  });
});

describe('banxa order status mapping', () => {
  const id = 'd9efc5d228cb7edfc4b6bb82f7b39f94';
  it.each([
    ['pendingPayment', 'pending'],
    ['waitingPayment', 'pending'],
    ['paymentReceived', 'pending'],
    ['inProgress', 'pending'],
    ['extraVerification', 'pending'],
    ['cryptoTransferred', 'pending'],
    ['coinTransferred', 'pending'],
    ['complete', 'paid'],
    ['declined', 'declined'],
    ['cancelled', 'failed'],
    ['expired', 'failed'],
    ['refunded', 'failed'],
  ])('%s maps to %s', (rawStatus, status) => {
    const read = banxaOrderEvent(banxaOrder(id, rawStatus), id);
    expect(read).toMatchObject({ kind: 'event', event: { status, rawStatus } });
    // Only a refund may end a payment whose card was charged.
    expect(read.kind === 'event' && read.event.refunded === true).toBe(rawStatus === 'refunded');
  });

  it('ignores an unknown status and a sell order', () => {
    expect(banxaOrderEvent(banxaOrder(id, 'somethingNew'), id).kind).toBe('ignored');
    expect(banxaOrderEvent(banxaOrder(id, 'complete', { orderType: 'SELL' }), id).kind).toBe('ignored');
  });
});

describe('banxa referral URL', () => {
  it.each([
    ['live', 'https://shoppay.banxa.com'],
    ['test', 'https://shoppay.banxa-sandbox.com'],
  ] as const)('%s: USDC on Polygon to the wallet, the amount and currency, the e-mail and the return page, on %s', async (mode, origin) => {
    const order = sampleOrder('EUR');
    const adapter = await banxa.create(settings[mode], contractContext('banxa', mode, { http: fakes[mode].http }));
    const url = new URL(
      redirectCheckout(await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: new AbortController().signal })).url,
    );
    expect(url.origin).toBe(origin);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      coinType: 'USDC',
      blockchain: 'MATIC',
      walletAddress: order.walletAddress,
      fiatType: 'EUR',
      fiatAmount: '149.99',
      email: 'jane+test@shop.io',
      returnUrl: order.returnUrl,
    });
    // Values URL-encoded, as the referral docs ask.
    expect(url.search).toContain('email=jane%2Btest%40shop.io');
  });
});

// The order statuses of https://docs.banxa.com/products/hosted-checkout/docs/transaction-lifecycle/order-statuses.
describe('banxa decline kinds', () => {
  const kind = (status: string) => {
    const read = banxaOrderEvent({ id: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', orderType: 'BUY', status }, 'a1b2c3d4e5f60718293a4b5c6d7e8f90');
    return read.kind === 'event' ? read.event.declineKind : read.why;
  };
  it.each([
    ['expired', 'abandoned'],
    ['declined', 'card_refused'],
    ['cancelled', 'other'],
    ['refunded', 'other'],
    ['complete', undefined],
    ['pendingPayment', undefined],
  ])('%s is %s', (status, expected) => {
    expect(kind(status)).toBe(expected);
  });
});
