import { createHmac } from 'node:crypto';
import { CONTRACT_NOW_MS, sampleOrder, type SignedWebhook, readingOf } from '../../../test/support/adapter-contract';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { SARDINE_FAKE_CLIENT, startSardineFake } from '../../../test/support/sardine-fake';
import { describeSessionAdapter } from '../../../test/support/session-adapter-suite';
import { ProviderWebhookError } from '../../provider-contract';
import { sardine, verifySardineSignature } from './sardine-adapter';
import { SARDINE_ORDER_STATUS, sardineWebhookEvent } from './sardine-order';

const WEBHOOK_SECRET = 'whsec_C2FyZGluZS13ZWJob29rLXNpZ25pbmctc2VjcmV0';

/**
 * Signed as the Standard Webhooks scheme Sardine's webhooks page describes, independently of the
 * adapter: HMAC-SHA256 keyed by the base64-decoded secret after whsec_, over `id.timestamp.body`.
 */
function signed(payload: unknown, nowMs: number, id = 'msg_2mY8cQ1vK0n7'): SignedWebhook {
  const rawBody = Buffer.from(JSON.stringify(payload));
  const timestamp = String(Math.floor(nowMs / 1000));
  const key = Buffer.from(WEBHOOK_SECRET.slice(6), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(rawBody).digest('base64');
  return { rawBody, headers: { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` } };
}

const webhookPayload = (paymentId: string, walletAddress: string, status: string) => ({
  eventType: `order.${status.toLowerCase()}`,
  id: '90024712-0aae-46e8-9534-48007baa610d',
  order: {
    id: '6d5e2058-7a30-46c5-bbfe-b5e20d427e5a',
    referenceId: paymentId,
    status,
    walletAddress,
    withdrawal: status === 'Complete' ? { txHash: `0x${'ab'.repeat(32)}`, walletAddress } : {},
  },
});

const kit = describeSessionAdapter({
  module: sardine,
  startFake: () => startSardineFake(() => CONTRACT_NOW_MS),
  settings: (fake) => ({ CLIENT_ID: fake.clientId, CLIENT_SECRET: fake.clientSecret, WEBHOOK_SECRET, API_URL: fake.url }),
  modes: ['test', 'live'],
  contract: (fake) => ({
    // The widget URL carries the token (opaque) and the order; our reference is the token's referenceId.
    readCheckout: (url) => {
      expect(url.pathname).toBe('/');
      expect(fake().widgetProblems(url.toString())).toEqual([]);
      return readingOf({
        wallet: url.searchParams.get('address'),
        amount: url.searchParams.get('fiat_amount'),
        currency: url.searchParams.get('fiat_currency'),
        reference: (JSON.parse(fake().requests.at(-1)!.body) as { referenceId: unknown }).referenceId,
      });
    },
    signWebhook: ({ paymentId, walletAddress, status }, nowMs) =>
      signed(webhookPayload(paymentId, walletAddress, status === 'paid' ? 'Complete' : 'Expired'), nowMs),
    webhookSignature: { header: 'webhook-signature', encoding: 'base64', part: /(?<=^v1,).*$/ },
    hostile: {
      payload: ({ paymentId, walletAddress }) => webhookPayload(paymentId, walletAddress, 'Complete'),
      sign: (payload, nowMs) => signed(payload, nowMs),
    },
  }),
  secret: (fake) => fake.clientSecret,
  sends: 'once',
  malformed: {
    'no clientToken': '{"expiresAt":"2026-11-25T12:30:00Z"}',
    'a clientToken with a URL in it': '{"clientToken":"x&address=0xevil0000"}',
    'an expiresAt already past': '{"clientToken":"8aeae330-9154","expiresAt":"2026-11-25T11:00:00Z"}',
    'an expiresAt that is no time': '{"clientToken":"8aeae330-9154","expiresAt":"soon"}',
  },
  defaultHosts: {
    live: 'https://api.sardine.ai/v1/auth/client-tokens',
    test: 'https://api.sandbox.sardine.ai/v1/auth/client-tokens',
  },
  status: {
    error: /Sardine/,
    failures: [['neither orders nor an order', { status: 200, body: '{"ok":true}' }]],
  },
});
const { build, open } = kit;
const sentBody = (index: number) => JSON.parse(kit.fake.requests[index]!.body) as Record<string, unknown>;

describe('sardine client token against a local Sardine', () => {
  it('is a JSON POST with basic auth; the widget URL carries the token, the order and the receipt page', async () => {
    const order = sampleOrder('USD');
    const created = redirectCheckout(await open(order, { mode: 'live' }));
    const [request] = kit.fake.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/auth/client-tokens' });
    // Basic base64(clientId:clientSecret), written here from the documented form.
    expect(request!.headers.authorization).toBe(
      `Basic ${Buffer.from('16744ddc-a8a3-48b2-a8e9-606ae8995539:f20ba4db-73c2-4942-8402-da77899e7662').toString('base64')}`,
    );
    expect(sentBody(0)).toEqual({
      referenceId: order.paymentId,
      identityPrefill: { emailAddress: order.email },
      paymentMethodTypeConfig: { enabled: ['us_debit', 'us_credit', 'international_debit', 'international_credit'], default: 'us_debit' },
    });
    const url = new URL(created.url);
    expect(url.origin + url.pathname).toBe('https://crypto.sardine.ai/');
    expect(url.searchParams.get('client_token')).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.fromEntries([...url.searchParams].filter(([name]) => name !== 'client_token'))).toEqual({
      address: order.walletAddress,
      network: 'polygon',
      asset_type: 'USDC',
      // Without the locks the customer can switch chain or asset in the widget, and the USDC lands on a chain nobody watches.
      fixed_network: 'polygon',
      fixed_asset_type: 'USDC',
      fiat_amount: '149.99',
      fiat_currency: 'USD',
      redirect_url: order.returnUrl,
    });
    expect(kit.fake.widgetProblems(created.url)).toEqual([]);
    expect(created).toMatchObject({ expiresAt: CONTRACT_NOW_MS + 30 * 60_000, singleUse: true, providerReference: order.paymentId });
    expect(new URL(redirectCheckout(await open(order, { idempotencyKey: `${order.paymentId}:2` })).url).origin).toBe(
      'https://crypto.sandbox.sardine.ai',
    );
  });

  it('a fresh checkout of the same payment sends its own referenceId (a new one per call), recorded as the reference', async () => {
    const order = sampleOrder('EUR');
    await open(order);
    const again = await open(order, { idempotencyKey: `${order.paymentId}:2` });
    expect(sentBody(1)).toMatchObject({ referenceId: `${order.paymentId}:2`, paymentMethodTypeConfig: { default: 'international_debit' } });
    expect(again.providerReference).toBe(`${order.paymentId}:2`);
    // The same referenceId twice is refused by Sardine (as the fake does): the adapter never reuses one.
    await expect(open(order)).rejects.toMatchObject({ kind: 'refused' });
  });

  it('a token without expiresAt is good for the documented 30 minutes; a far-off one for two hours at most', async () => {
    kit.fake.script = () => ({ status: 200, body: '{"clientToken":"8aeae330-9154-4051-ab98-d173ba2bc7f0"}' });
    await expect(open()).resolves.toMatchObject({ expiresAt: CONTRACT_NOW_MS + 30 * 60_000 });
    kit.fake.script = () => ({
      status: 200,
      body: '{"clientToken":"8aeae330-9154-4051-ab98-d173ba2bc7f0","expiresAt":"2030-01-01T00:00:00Z"}',
    });
    await expect(open()).resolves.toMatchObject({ expiresAt: CONTRACT_NOW_MS + 120 * 60_000 });
  });
});

describe('sardine status look-up (Get Order(s) by referenceId)', () => {
  const signal = () => AbortSignal.timeout(3000);
  const o = sampleOrder('USD');
  const order = (fields: Record<string, unknown>) => ({
    id: '0113e40a-7406-4036-a882-745a3275e614',
    createdAt: '2026-11-25T11:46:29Z',
    referenceId: `${o.paymentId}:2`,
    status: 'Draft',
    fiatCurrency: 'USD',
    walletAddress: o.walletAddress,
    total: 149.99,
    ...fields,
  });

  it('asks GET /v1/orders?referenceId=<recorded reference> with basic auth; null while Sardine has no order', async () => {
    const adapter = await build();
    await expect(
      adapter.status!({ paymentId: o.paymentId, providerReference: `${o.paymentId}:2` }, { signal: signal() }),
    ).resolves.toBeNull();
    const [request] = kit.fake.requests;
    expect(request!.method).toBe('GET');
    expect(request!.path).toBe(`/v1/orders?referenceId=${encodeURIComponent(`${o.paymentId}:2`)}`);
    expect(request!.headers.authorization).toBe(
      `Basic ${Buffer.from(`${SARDINE_FAKE_CLIENT.id}:${SARDINE_FAKE_CLIENT.secret}`).toString('base64')}`,
    );
    await adapter.status!({ paymentId: o.paymentId }, { signal: signal() });
    expect(kit.fake.requests[1]!.path).toBe(`/v1/orders?referenceId=${o.paymentId}`);
  });

  it('the newest order with our referenceId speaks: Complete is paid, with its withdrawal transaction', async () => {
    kit.fake.addOrder(order({ id: 'old', status: 'Declined', createdAt: '2026-11-25T11:40:00Z' }));
    kit.fake.addOrder(order({ status: 'Complete', withdrawal: { txHash: `0x${'ef'.repeat(32)}`, walletAddress: o.walletAddress } }));
    const query = { paymentId: o.paymentId, providerReference: `${o.paymentId}:2` };
    await expect((await build()).status!(query, { signal: signal() })).resolves.toEqual({
      match: { paymentId: o.paymentId, providerReference: `${o.paymentId}:2`, walletAddress: o.walletAddress },
      status: 'paid',
      rawStatus: 'Complete',
      providerReference: `${o.paymentId}:2`,
      destination: { address: o.walletAddress },
      txHash: `0x${'ef'.repeat(32)}`,
    });
  });

  it('reads one order or {data} as well as a list; another referenceId is not ours; an unmapped status says nothing yet', async () => {
    const adapter = await build();
    const query = { paymentId: o.paymentId, providerReference: `${o.paymentId}:2` };
    kit.fake.script = () => ({ status: 200, body: JSON.stringify(order({ status: 'Processed' })) });
    await expect(adapter.status!(query, { signal: signal() })).resolves.toMatchObject({ status: 'charged' });
    kit.fake.script = () => ({ status: 200, body: JSON.stringify({ data: [order({ status: 'Expired' })] }) });
    await expect(adapter.status!(query, { signal: signal() })).resolves.toMatchObject({ status: 'failed' });
    kit.fake.script = () => ({ status: 200, body: JSON.stringify([order({ referenceId: 'another', status: 'Complete' })]) });
    await expect(adapter.status!(query, { signal: signal() })).resolves.toBeNull();
    kit.fake.script = () => ({ status: 200, body: JSON.stringify([order({ status: 'Pondering' })]) });
    await expect(adapter.status!(query, { signal: signal() })).resolves.toBeNull();
    kit.fake.script = () => ({ status: 404, body: '{"message":"not found"}' });
    await expect(adapter.status!(query, { signal: signal() })).resolves.toBeNull();
  });

  it.each(Object.entries(SARDINE_ORDER_STATUS).map(([raw, mapped]) => [raw, mapped.status] as const))(
    'order status %s maps to %s',
    async (raw, status) => {
      kit.fake.addOrder(order({ referenceId: o.paymentId, status: raw.charAt(0).toUpperCase() + raw.slice(1) }));
      const event = await (await build()).status!({ paymentId: o.paymentId }, { signal: signal() });
      expect(event).toMatchObject({ status });
      // Only a refund may end a payment whose card was charged.
      expect(event?.refunded === true).toBe(raw === 'refunded');
    },
  );
});

describe('sardine webhook signature (Standard Webhooks)', () => {
  it("accepts the Standard Webhooks specification's published vector", () => {
    const key = Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64');
    const headers = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    const body = Buffer.from('{"test": 2432232314}');
    expect(() => verifySardineSignature(body, headers, key, 1614265330_000)).not.toThrow();
    expect(() => verifySardineSignature(Buffer.from('{"test": 2432232315}'), headers, key, 1614265330_000)).toThrow(ProviderWebhookError);
    expect(() => verifySardineSignature(body, { ...headers, 'webhook-id': 'msg_other' }, key, 1614265330_000)).toThrow(
      ProviderWebhookError,
    );
  });

  it('any v1 entry may match (a secret being rotated); other versions are not signatures', async () => {
    const adapter = await build();
    const o = sampleOrder('USD');
    const webhook = signed(webhookPayload(o.paymentId, o.walletAddress, 'Complete'), CONTRACT_NOW_MS);
    const genuine = String(webhook.headers['webhook-signature']);
    const both = { ...webhook.headers, 'webhook-signature': `v1,${'A'.repeat(44)} ${genuine}` };
    await expect(adapter.verifyWebhook(webhook.rawBody, both)).resolves.toMatchObject({ kind: 'event', event: { status: 'paid' } });
    const otherVersion = { ...webhook.headers, 'webhook-signature': genuine.replace('v1,', 'v2,') };
    await expect(adapter.verifyWebhook(webhook.rawBody, otherVersion)).rejects.toBeInstanceOf(ProviderWebhookError);
  });

  it('reads the event type with or without order., names the payment by its referenceId, ignores other events', () => {
    const o = sampleOrder('USD');
    const read = (payload: unknown) => sardineWebhookEvent(Buffer.from(JSON.stringify(payload)));
    expect(read(webhookPayload(`${o.paymentId}:3`, o.walletAddress, 'Declined'))).toMatchObject({
      kind: 'event',
      event: { status: 'declined', rawStatus: 'declined', match: { paymentId: o.paymentId, providerReference: `${o.paymentId}:3` } },
    });
    expect(read({ eventType: 'processed', order: { referenceId: o.paymentId } })).toMatchObject({ event: { status: 'charged' } });
    expect(read({ eventType: 'customer.updated', order: { referenceId: o.paymentId } }).kind).toBe('ignored');
    expect(() => read({ eventType: 'order.complete' })).toThrow(/no order/);
    expect(() => sardineWebhookEvent(Buffer.from('nope'))).toThrow(/JSON/);
  });
});

// The order statuses of Sardine's on-ramp reference and webhooks page.
describe('sardine decline kinds', () => {
  const kind = (eventType: string) => {
    const read = sardineWebhookEvent(
      Buffer.from(JSON.stringify({ eventType, id: 'evt-6', order: { id: 'ord-6', referenceId: '6f1a0b1e-7c4d-4b8e-9c1a-2b3c4d5e6f70' } })),
    );
    return read.kind === 'event' ? read.event.declineKind : read.why;
  };
  it.each([
    ['order.expired', 'abandoned'],
    ['order.declined', 'other'],
    ['order.cancelled', 'other'],
    ['order.complete', undefined],
  ])('%s is %s', (eventType, expected) => {
    expect(kind(eventType)).toBe(expected);
  });
});
