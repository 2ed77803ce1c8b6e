import { createHmac } from 'node:crypto';
import { contractContext, sampleOrder, readingOf } from '../../../test/support/adapter-contract';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { describeSessionAdapter } from '../../../test/support/session-adapter-suite';
import { FAKE_TRANSFI, startTransfiFake } from '../../../test/support/transfi-fake';
import { ProviderWebhookError } from '../../provider-contract';
import { transfi, TRANSFI_ORDER_LIFETIME_MS } from './transfi-adapter';
import { TRANSFI_ORDER_STATUS, transfiWebhookEvent } from './transfi-webhook';

const WEBHOOK_SECRET = 'whk_9f2c4e7a1b3d5f8a0c2e4b6d8f1a3c5e';

/** X-Transfi-Hmac-Hash as TransFi's page computes it, independently of the adapter: hex HMAC-SHA256 of the raw body. */
function signed(payload: unknown, secret = WEBHOOK_SECRET) {
  const rawBody = Buffer.from(JSON.stringify(payload));
  return { rawBody, headers: { 'x-transfi-hmac-hash': createHmac('sha256', secret).update(rawBody).digest('hex') } };
}

/** An order event in the shape of docs.transfi.com/docs/webhook-events-onramp's sample. */
const event = (walletAddress: string, status: string, orderId = 'OR-2302271108092', entityType = 'order') => ({
  orgId: 'OG-220927101501',
  entityId: orderId,
  entityType,
  status,
  user: { userId: 'UX-2302140112529', firstName: 'Jane', lastName: 'Doe', country: 'US', createdAt: '2026-11-25T11:50:00.000Z' },
  order: {
    orderId,
    type: 'buy',
    fiatTicker: 'USD',
    cryptoTicker: 'USDCPOLYGON',
    fiatAmount: 149.99,
    cryptoAmount: 142.31,
    walletAddress,
    paymentType: 'card',
  },
});

const kit = describeSessionAdapter({
  module: transfi,
  startFake: () => startTransfiFake(),
  settings: (fake) => ({
    USERNAME: FAKE_TRANSFI.username,
    PASSWORD: FAKE_TRANSFI.password,
    MID: FAKE_TRANSFI.mid,
    WEBHOOK_SECRET,
    API_URL: fake.url,
  }),
  modes: ['test'],
  contract: (fake) => ({
    // The payment URL carries an opaque paytoken: the order it stands for is what TransFi was asked for.
    readCheckout: (url) => {
      const created = fake().orderOfPaymentUrl(url.toString())!.request;
      const withdraw = created.withdrawDetails as Record<string, string>;
      const context = created.partnerContext as Record<string, string>;
      return readingOf({
        wallet: withdraw.walletAddress!,
        amount: created.amount,
        currency: created.currency,
        reference: context.paymentId!,
      });
    },
    signWebhook: ({ walletAddress, status }) => signed(event(walletAddress, status === 'paid' ? 'asset_settled' : 'expired')),
    webhookSignature: { header: 'x-transfi-hmac-hash', encoding: 'hex' },
    webhookHasTimestamp: false,
    hostile: {
      payload: ({ walletAddress }) => event(walletAddress, 'fund_failed'),
      sign: (payload) => signed(payload),
    },
  }),
  secret: () => FAKE_TRANSFI.password,
  sends: 'once',
  malformedAmount: false,
  malformed: {
    'no orderId': '{"paymentUrl":"https://sandbox-pay-widget.transfi.com/pay?paytoken=x"}',
    'an http paymentUrl': '{"orderId":"OR-1","paymentUrl":"http://sandbox-pay-widget.transfi.com/pay"}',
  },
  defaultHosts: { test: 'https://sandbox-api.transfi.com/v2/orders/deposit', live: 'https://api.transfi.com/v2/orders/deposit' },
});
const { build, open } = kit;
const order = sampleOrder('USD');

describe('transfi ramp order against a local TransFi', () => {
  it('is a JSON POST to /v2/orders/deposit with Basic auth, MID and the documented fields; the customer goes to paymentUrl', async () => {
    const created = redirectCheckout(await open());
    const [request] = kit.fake.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v2/orders/deposit' });
    expect(request!.headers.authorization).toBe(
      `Basic ${Buffer.from(`${FAKE_TRANSFI.username}:${FAKE_TRANSFI.password}`).toString('base64')}`,
    );
    expect(request!.headers.mid).toBe(FAKE_TRANSFI.mid);
    expect(JSON.parse(request!.body)).toEqual({
      paymentType: 'card',
      purposeCode: 'personal',
      amount: 149.99,
      currency: 'USD',
      email: order.email,
      redirectUrl: order.returnUrl,
      sourceUrl: 'https://pay.example.org',
      partnerId: order.paymentId,
      partnerContext: { paymentId: order.paymentId },
      withdrawDetails: { cryptoTicker: 'USDCPOLYGON', walletAddress: order.walletAddress },
    });
    expect(created.providerReference).toMatch(/^OR-/);
    expect(kit.fake.orderOfPaymentUrl(created.url)?.orderId).toBe(created.providerReference);
    expect(created.expiresAt).toBe(contractContext('transfi', 'test').now() + TRANSFI_ORDER_LIFETIME_MS);
    expect(created.singleUse).toBeUndefined();
  });

  it('a fresh checkout of the same payment sends its own partnerId (the idempotency key), and opens another order', async () => {
    const first = redirectCheckout(await open());
    const second = redirectCheckout(await open(order, { idempotencyKey: `${order.paymentId}:2` }));
    expect(kit.fake.requests.map((request) => JSON.parse(request.body).partnerId)).toEqual([order.paymentId, `${order.paymentId}:2`]);
    expect(second.providerReference).not.toBe(first.providerReference);
  });

  it('MODE test selects test mode', () => {
    expect(transfi.modeOf(kit.settings(), 'test')).toBe('test');
  });
});

describe('transfi order status (Get Order)', () => {
  const status = async (providerReference: string | undefined) =>
    (await build()).status!(
      { paymentId: order.paymentId, ...(providerReference ? { providerReference } : {}) },
      {
        signal: AbortSignal.timeout(3000),
      },
    );

  it('asks GET /v2/orders/{orderId} with Basic auth and MID, and reads each status as the webhook does', async () => {
    const reference = redirectCheckout(await open()).providerReference!;
    await expect(status(reference)).resolves.toMatchObject({ status: 'pending', rawStatus: 'initiated' });
    kit.fake.orders.get(reference)!.status = 'fund_settled';
    await expect(status(reference)).resolves.toMatchObject({ status: 'charged', providerReference: reference });
    kit.fake.orders.get(reference)!.status = 'asset_settled';
    await expect(status(reference)).resolves.toMatchObject({
      status: 'paid',
      match: { paymentId: order.paymentId, providerReference: reference, walletAddress: order.walletAddress },
    });
    const lookup = kit.fake.requests.at(-1)!;
    expect(lookup).toMatchObject({ method: 'GET', path: `/v2/orders/${reference}` });
    expect(lookup.headers.mid).toBe(FAKE_TRANSFI.mid);
  });

  it('null without a TransFi order id, for an order TransFi does not know, or a status word it does not document', async () => {
    await expect(status(undefined)).resolves.toBeNull();
    expect(kit.fake.requests).toHaveLength(0);
    await expect(status('OR-0000000000')).resolves.toBeNull();
    const reference = redirectCheckout(await open()).providerReference!;
    kit.fake.orders.get(reference)!.status = 'on_hold_someday';
    await expect(status(reference)).resolves.toBeNull();
  });

  it('throws on a 5xx (after retrying: a read) and on a malformed answer, so the poller asks later', async () => {
    kit.fake.script = () => ({ status: 503, body: '{}' });
    await expect(status('OR-1')).rejects.toThrow(/HTTP 503/);
    expect(kit.fake.requests.length).toBeGreaterThan(1);
    kit.fake.script = () => ({ status: 200, body: '{"data":{}}' });
    await expect(status('OR-1')).rejects.toThrow(/data.status/);
    kit.fake.script = () => ({ status: 200, body: 'nope' });
    await expect(status('OR-1')).rejects.toThrow(/not JSON/);
  });
});

describe('transfi webhook', () => {
  it('refuses another secret, a missing or doubled header, and an upper-cased copy of the signature', async () => {
    const adapter = await build();
    const body = event(order.walletAddress, 'fund_settled');
    const good = signed(body);
    await expect(adapter.verifyWebhook(good.rawBody, good.headers)).resolves.toMatchObject({ kind: 'event', event: { status: 'charged' } });
    const other = signed(body, 'another_webhook_secret_0000');
    await expect(adapter.verifyWebhook(other.rawBody, other.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    await expect(adapter.verifyWebhook(good.rawBody, {})).rejects.toBeInstanceOf(ProviderWebhookError);
    const hash = good.headers['x-transfi-hmac-hash'];
    await expect(adapter.verifyWebhook(good.rawBody, { 'x-transfi-hmac-hash': [hash, hash] })).rejects.toBeInstanceOf(ProviderWebhookError);
    await expect(adapter.verifyWebhook(good.rawBody, { 'x-transfi-hmac-hash': hash.toUpperCase() })).rejects.toBeInstanceOf(
      ProviderWebhookError,
    );
  });

  it.each(Object.entries(TRANSFI_ORDER_STATUS))('order status %s maps to %s, naming the order and the wallet', (raw, mapped) => {
    const read = transfiWebhookEvent(Buffer.from(JSON.stringify(event(order.walletAddress, raw))));
    expect(read).toMatchObject({
      kind: 'event',
      event: { status: mapped, rawStatus: raw, match: { providerReference: 'OR-2302271108092', walletAddress: order.walletAddress } },
    });
    if (read.kind === 'event') expect(read.event.reason !== undefined).toBe(mapped === 'declined' || mapped === 'failed');
  });

  it('reports the wallet and ticker the order delivers to; signs no time, so the gateway records each event once', () => {
    expect(transfiWebhookEvent(Buffer.from(JSON.stringify(event(order.walletAddress, 'asset_settled'))))).toMatchObject({
      event: { destination: { address: order.walletAddress, asset: 'USDCPOLYGON' } },
    });
    expect(transfi.descriptor).toMatchObject({ webhookUntimed: true, reportsDestination: true });
  });

  it('ignores user events, sell orders and undocumented statuses; refuses a body without an order', () => {
    expect(transfiWebhookEvent(Buffer.from(JSON.stringify(event(order.walletAddress, 'kyc_success', 'UX-1', 'user')))).kind).toBe(
      'ignored',
    );
    const sell = event(order.walletAddress, 'asset_settled');
    sell.order.type = 'sell';
    expect(transfiWebhookEvent(Buffer.from(JSON.stringify(sell))).kind).toBe('ignored');
    expect(transfiWebhookEvent(Buffer.from(JSON.stringify(event(order.walletAddress, 'refund_someday')))).kind).toBe('ignored');
    expect(() => transfiWebhookEvent(Buffer.from('{"entityType":"order","status":"asset_settled"}'))).toThrow(ProviderWebhookError);
    expect(() => transfiWebhookEvent(Buffer.from('['))).toThrow(ProviderWebhookError);
  });
});

// The statuses of https://docs.transfi.com/docs/understanding-the-workflow-of-onramp-transaction.
describe('transfi decline kinds', () => {
  const kind = (status: string) => {
    const read = transfiWebhookEvent(
      Buffer.from(
        JSON.stringify({
          entityType: 'order',
          entityId: 'OR-2411251200001',
          status,
          order: { orderId: 'OR-2411251200001', type: 'buy', partnerContext: { paymentId: 'pay-4' } },
        }),
      ),
    );
    return read.kind === 'event' ? read.event.declineKind : read.why;
  };
  it.each([
    ['expired', 'abandoned'],
    ['fund_failed', 'other'],
    ['asset_deposit_failed', 'other'],
    ['asset_settled', undefined],
  ])('%s is %s', (status, expected) => {
    expect(kind(status)).toBe(expected);
  });
});
