import { createHmac } from 'node:crypto';
import { jwtSignatureInBodyField, sampleOrder, readingOf } from '../../../test/support/adapter-contract';
import { redirectCheckout } from '../../../test/support/checkout-target';
import type { FakeAnswer } from '../../../test/support/documented-fake';
import { memorySharedStore } from '../../../test/support/memory-shared-store';
import { describeSessionAdapter } from '../../../test/support/session-adapter-suite';
import { FAKE_API_KEY, FAKE_API_SECRET, startTransakFake, type TransakFake } from '../../../test/support/transak-fake';
import { ProviderWebhookError, type AdapterContext, type ProviderAdapter, type ProviderMode } from '../../provider-contract';
import { createTokenStore, type TokenStore } from '../../support/shared-token-store';
import { transak, transakTokenName } from './transak-adapter';
import { TRANSAK_ORDER_STATUS, transakWebhookEvent } from './transak-webhook';

let tokens: TokenStore;
const TOKEN_NAME = transakTokenName('test', FAKE_API_KEY);

beforeEach(() => {
  tokens = createTokenStore(memorySharedStore(), { prefix: 'provider-tokens:transak:' });
});

/** A webhook as Transak sends it: {"data": JWT}, HS256 over header.payload with the partner access token, by node:crypto. */
function signedWebhook(key: string, webhookData: Record<string, unknown>, header: object = { alg: 'HS256', typ: 'JWT' }) {
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${b64(header)}.${b64({ webhookData, eventID: 'ORDER_COMPLETED', createdAt: '2026-11-25T12:00:00.000Z' })}`;
  const signature = createHmac('sha256', key).update(unsigned).digest('base64url');
  return { rawBody: Buffer.from(JSON.stringify({ data: `${unsigned}.${signature}` })), headers: { 'content-type': 'application/json' } };
}

const order = (paymentId: string, walletAddress: string, status: string) => ({
  id: 'c1f2e3d4-0000-4a4a-9b9b-123456789abc',
  partnerOrderId: paymentId,
  status,
  isBuyOrSell: 'BUY',
  walletAddress,
  network: 'polygon',
  cryptoCurrency: 'USDC',
  fiatCurrency: 'EUR',
  fiatAmount: 149.99,
});

/** Seeds the store as a checkout would have, and returns the token Transak signs with. */
async function storedToken(): Promise<string> {
  return tokens.current(
    TOKEN_NAME,
    async () => ({ value: 'eyJhbGciOiJIUzI1NiJ9.seeded.token-for-webhooks', expiresAt: Date.now() + 86_400_000 }),
    {
      signal: AbortSignal.timeout(1000),
    },
  );
}

const answeringRefresh = (answer: FakeAnswer) => (fake: TransakFake) => {
  fake.answerRefresh = () => answer;
  return undefined;
};

const kit = describeSessionAdapter({
  module: transak,
  startFake: () => startTransakFake(),
  // Both hosts on the local fake.
  settings: (fake) => ({ API_KEY: FAKE_API_KEY, API_SECRET: FAKE_API_SECRET, API_URL: fake.url, GATEWAY_URL: `${fake.url}/` }),
  modes: ['test'],
  currency: 'EUR',
  context: () => ({ tokens, now: Date.now }),
  contract: (fake) => ({
    // The widget URL carries only a session id: what it stands for is what the session was opened with.
    readCheckout: (url) => {
      const params = fake().widgetParamsOf(url.searchParams.get('sessionId') ?? '') ?? {};
      return readingOf({
        wallet: params.walletAddress,
        amount: params.fiatAmount,
        currency: params.fiatCurrency,
        reference: params.partnerOrderId,
      });
    },
    signWebhook: async ({ paymentId, walletAddress, status }) =>
      signedWebhook(await storedToken(), order(paymentId, walletAddress, status === 'paid' ? 'COMPLETED' : 'FAILED')),
    // The JWT in the body is the signature; it carries no documented time.
    signatureInHeaders: false,
    webhookHasTimestamp: false,
    webhookSignature: jwtSignatureInBodyField('data'),
    hostile: {
      payload: ({ paymentId, walletAddress }) => order(paymentId, walletAddress, 'FAILED'),
      sign: async (payload) => signedWebhook(await storedToken(), payload as Record<string, unknown>),
    },
  }),
  // Never a credential in what the operator reads.
  secret: () => FAKE_API_SECRET,
  // A session call is never retried: Transak does not de-duplicate them.
  sends: 'once',
  malformedAmount: false,
  answerSession: (fake, answer) => {
    fake.answerSession = () => answer;
  },
  refusedWith: [400, 403],
  malformed: {
    'a malformed session answer': '{"data":{"url":"x"}}',
    'HTML instead of JSON': '<html>Bad gateway</html>',
    'a widget URL that is not https': '{"data":{"widgetUrl":"http://global.transak.com?x=1"}}',
  },
  failures: [
    ['429 on the refresh', 'unavailable', answeringRefresh({ status: 429, body: '{}' })],
    ['a refused key (the refresh call)', 'refused', answeringRefresh({ status: 401, body: '{"error":{"message":"Invalid API key"}}' })],
    ['a token without expiry', 'refused', answeringRefresh({ status: 200, body: '{"data":{"accessToken":"eyJhbGciOiJIUzI1NiJ9.x.y"}}' })],
  ],
  defaultHosts: {
    live: 'https://api.transak.com/partners/api/v2/refresh-token',
    test: 'https://api-stg.transak.com/partners/api/v2/refresh-token',
  },
});
const build = (mode: ProviderMode = 'test', context: Partial<AdapterContext> = {}) => kit.build(mode, kit.settings(mode), context);
const checkout = (adapter: ProviderAdapter) => kit.open(sampleOrder('EUR'), { adapter });

describe('transak checkout against a local Transak', () => {
  it('mints the partner access token, then opens the session with it, each request as documented', async () => {
    const created = redirectCheckout(await checkout(await build()));
    expect(kit.fake.problems).toEqual([]);
    expect(kit.fake.refreshes).toHaveLength(1);
    expect(kit.fake.refreshes[0]).toMatchObject({ method: 'POST', path: '/partners/api/v2/refresh-token' });
    expect(kit.fake.refreshes[0]!.headers['api-secret']).toBe(FAKE_API_SECRET);
    expect(JSON.parse(kit.fake.refreshes[0]!.body)).toEqual({ apiKey: FAKE_API_KEY });
    const [session] = kit.fake.sessions;
    expect(session).toMatchObject({ method: 'POST', path: '/api/v2/auth/session' });
    expect(session!.headers['access-token']).toBe(kit.fake.currentToken);
    const o = sampleOrder('EUR');
    expect(JSON.parse(session!.body)).toEqual({
      widgetParams: {
        apiKey: FAKE_API_KEY,
        referrerDomain: 'pay.example.org',
        walletAddress: o.walletAddress,
        network: 'polygon',
        cryptoCurrencyCode: 'USDC',
        fiatAmount: 149.99,
        fiatCurrency: 'EUR',
        partnerOrderId: o.paymentId,
        redirectURL: o.returnUrl,
        disableWalletAddressForm: true,
        paymentMethod: 'credit_debit_card',
        productsAvailed: 'BUY',
        email: 'jane+test@shop.io',
      },
    });
    expect(new URL(created.url).origin).toBe('https://global-stg.transak.com');
    expect(created.singleUse).toBe(true);
    expect(created.expiresAt! - Date.now()).toBeGreaterThan(290_000);
    expect(created.expiresAt! - Date.now()).toBeLessThanOrEqual(300_000);
  });

  it('fees on top: sends cryptoAmount (a number, the USDC to deliver) and no fiatAmount, the fiat currency kept', async () => {
    await kit.open({ ...sampleOrder('EUR'), usdc: 151_505_051n }, { adapter: await build() });
    expect(kit.fake.problems).toEqual([]);
    const { widgetParams } = JSON.parse(kit.fake.sessions.at(-1)!.body) as { widgetParams: Record<string, unknown> };
    expect(widgetParams.cryptoAmount).toBe(151.505051);
    expect(widgetParams).not.toHaveProperty('fiatAmount');
    expect([widgetParams.fiatCurrency, widgetParams.cryptoCurrencyCode, widgetParams.network]).toEqual(['EUR', 'USDC', 'polygon']);
  });

  it('reuses the stored token for later checkouts (one refresh for many), also from another adapter instance', async () => {
    await checkout(await build());
    await Promise.all([checkout(await build()), checkout(await build()), checkout(await build())]);
    expect(kit.fake.refreshes).toHaveLength(1);
    expect(kit.fake.sessions).toHaveLength(4);
  });

  it('keeps a token per mode and API key in one shared store, named by a hash that never shows the key', async () => {
    const shared = memorySharedStore();
    const names: string[] = [];
    const recording = {
      ...shared,
      set: (key: string, ...rest: Parameters<typeof shared.set> extends [string, ...infer R] ? R : never) => {
        names.push(key);
        return shared.set(key, ...rest);
      },
    };
    const store = createTokenStore(recording, { prefix: 'provider-tokens:transak:' });
    await checkout(await build('test', { tokens: store }));
    await checkout(await build('live', { tokens: store }));
    // Live mode minted its own token rather than using the test one (same prefix, same store).
    expect(kit.fake.refreshes).toHaveLength(2);
    const tokenKeys = [...new Set(names.filter((name) => !name.endsWith(':lock')))];
    expect(tokenKeys).toEqual([
      `provider-tokens:transak:partner-access-token:test:${transakTokenName('test', FAKE_API_KEY).slice(-16)}`,
      `provider-tokens:transak:partner-access-token:live:${transakTokenName('live', FAKE_API_KEY).slice(-16)}`,
    ]);
    expect(tokenKeys.join()).not.toContain(FAKE_API_KEY);
    expect(transakTokenName('live', FAKE_API_KEY)).toMatch(/^partner-access-token:live:[0-9a-f]{16}$/);
    expect(transakTokenName('live', 'another-partner-key')).not.toBe(transakTokenName('live', FAKE_API_KEY));
  });

  it('a token Transak no longer accepts (401) is dropped and the session opened once more with a fresh one', async () => {
    const adapter = await build();
    await checkout(adapter);
    // Refreshed outside this gateway (the dashboard, another gateway with the same key): ours is dead.
    await fetch(`${kit.fake.url}/partners/api/v2/refresh-token`, {
      method: 'POST',
      headers: { 'api-secret': FAKE_API_SECRET, 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: FAKE_API_KEY }),
    });
    const created = redirectCheckout(await checkout(adapter));
    expect(created.url).toMatch(/sessionId=/);
    expect(kit.fake.refreshes).toHaveLength(3);
    expect(kit.fake.sessions.map((s) => s.headers['access-token'] === kit.fake.currentToken)).toEqual([false, false, true]);
  });
});

describe('transak webhook', () => {
  const sample = sampleOrder('EUR');

  it('verifies with the current token, then the previous one; refuses another key, a tampered claim and alg none', async () => {
    const adapter = await build();
    await checkout(adapter);
    const first = kit.fake.currentToken!;
    const signedBefore = signedWebhook(first, order(sample.paymentId, sample.walletAddress, 'PROCESSING'));
    await tokens.discard(TOKEN_NAME, first);
    // The store lost the token (refused): a fresh checkout mints another, and the old one is no longer known.
    await checkout(adapter);
    await expect(adapter.verifyWebhook(signedBefore.rawBody, signedBefore.headers)).rejects.toBeInstanceOf(ProviderWebhookError);

    // A regular refresh keeps the one before: a webhook signed just before it still verifies.
    let clock = Date.now();
    const refreshing = await build('test', { tokens: createTokenStore(memorySharedStore(), { prefix: 'p:', now: () => clock }) });
    await checkout(refreshing);
    const older = kit.fake.currentToken!;
    clock += 7 * 24 * 3_600_000;
    await checkout(refreshing);
    const newer = kit.fake.currentToken!;
    expect(newer).not.toBe(older);
    for (const key of [older, newer]) {
      const webhook = signedWebhook(key, order(sample.paymentId, sample.walletAddress, 'COMPLETED'));
      const outcome = await refreshing.verifyWebhook(webhook.rawBody, webhook.headers);
      expect(outcome).toMatchObject({ kind: 'event', event: { status: 'paid', match: { paymentId: sample.paymentId } } });
    }
    const forged = signedWebhook('not-the-partner-token', order(sample.paymentId, sample.walletAddress, 'COMPLETED'));
    await expect(refreshing.verifyWebhook(forged.rawBody, forged.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    const none = signedWebhook(newer, order(sample.paymentId, sample.walletAddress, 'COMPLETED'), { alg: 'none' });
    await expect(refreshing.verifyWebhook(none.rawBody, none.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    const genuine = signedWebhook(newer, order(sample.paymentId, sample.walletAddress, 'FAILED'));
    const { data } = JSON.parse(genuine.rawBody.toString()) as { data: string };
    const [head, , signature] = data.split('.');
    const claims = Buffer.from(JSON.stringify({ webhookData: order(sample.paymentId, sample.walletAddress, 'COMPLETED') })).toString(
      'base64url',
    );
    const tampered = Buffer.from(JSON.stringify({ data: `${head}.${claims}.${signature}` }));
    await expect(refreshing.verifyWebhook(tampered, {})).rejects.toBeInstanceOf(ProviderWebhookError);
    for (const junk of ['', 'null', '{"data":5}', '{"data":"a.b"}', 'not json']) {
      await expect(refreshing.verifyWebhook(Buffer.from(junk), {})).rejects.toBeInstanceOf(ProviderWebhookError);
    }
  });

  it('refuses every webhook while no token was ever minted (nothing to verify with)', async () => {
    const adapter = await build();
    const webhook = signedWebhook('anything', order(sample.paymentId, sample.walletAddress, 'COMPLETED'));
    await expect(adapter.verifyWebhook(webhook.rawBody, webhook.headers)).rejects.toThrow(/no partner access token/);
  });

  it.each(Object.entries(TRANSAK_ORDER_STATUS))('%s maps to %s', (status, mapped) => {
    const outcome = transakWebhookEvent({ webhookData: order(sample.paymentId, sample.walletAddress, status) });
    expect(outcome).toMatchObject({
      kind: 'event',
      event: {
        status: mapped,
        rawStatus: status,
        match: { paymentId: sample.paymentId, providerReference: 'c1f2e3d4-0000-4a4a-9b9b-123456789abc' },
      },
    });
    if (mapped === 'failed') expect(outcome.kind === 'event' && outcome.event.reason).toMatch(/Transak/);
  });

  it('reports the wallet, network and asset the order delivers to, and REFUNDED as a refund; its JWT signs no time', () => {
    const read = (status: string) => transakWebhookEvent({ webhookData: order(sample.paymentId, sample.walletAddress, status) });
    expect(read('COMPLETED')).toMatchObject({
      event: { destination: { address: sample.walletAddress, network: 'polygon', asset: 'USDC' } },
    });
    expect(read('REFUNDED')).toMatchObject({ event: { status: 'failed', refunded: true } });
    for (const status of ['FAILED', 'CANCELLED', 'EXPIRED']) expect(read(status)).not.toMatchObject({ event: { refunded: true } });
    expect(transak.descriptor).toMatchObject({ webhookUntimed: true, reportsDestination: true });
  });

  it('covers the ten statuses of the documented list; ignores sell orders and unknown statuses', () => {
    expect(Object.keys(TRANSAK_ORDER_STATUS)).toHaveLength(10);
    expect(
      transakWebhookEvent({ webhookData: { ...order(sample.paymentId, sample.walletAddress, 'COMPLETED'), isBuyOrSell: 'SELL' } }).kind,
    ).toBe('ignored');
    expect(transakWebhookEvent({ webhookData: order(sample.paymentId, sample.walletAddress, 'SOMETHING_NEW') }).kind).toBe('ignored');
    expect(() => transakWebhookEvent({})).toThrow(ProviderWebhookError);
  });
});

// Statuses of https://docs.transak.com/guides/track-order-status: only EXPIRED says why ("the user failed to make
// the payment within the timeframe").
describe('transak decline kinds', () => {
  const kind = (status: string) => {
    const read = transakWebhookEvent({
      webhookData: { id: 'b2f1c3d4-0000-4000-8000-000000000001', status, isBuyOrSell: 'BUY', partnerOrderId: 'pay-1' },
    });
    return read.kind === 'event' ? read.event.declineKind : read.why;
  };
  it.each([
    ['EXPIRED', 'abandoned'],
    ['FAILED', 'other'],
    ['CANCELLED', 'other'],
    ['REFUNDED', 'other'],
    ['COMPLETED', undefined],
    ['PROCESSING', undefined],
  ])('%s is %s', (status, expected) => {
    expect(kind(status)).toBe(expected);
  });
});
