import { generateKeyPairSync, sign } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CONTRACT_NOW_MS,
  contractContext,
  describeAdapterContract,
  sampleOrder,
  signatureInHeader,
  type SignedWebhook,
} from '../../../test/support/adapter-contract';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { startBinanceFake, type BinanceFake } from '../../../test/support/binance-fake';
import { POLYGON_USDC, ProviderCheckoutError, ProviderWebhookError, type ProviderMode } from '../../provider-contract';
import { createProviderHttpClient } from '../../support/provider-http-client';
import { binance } from './binance-adapter';
import { BINANCE_ORDER_STATUS, binanceWebhookEvent, paymentIdOfBinanceOrder } from './binance-order';

let fake: BinanceFake;
beforeAll(async () => {
  fake = await startBinanceFake(() => CONTRACT_NOW_MS);
});
beforeEach(() => fake.reset());
afterAll(async () => {
  await http.close();
  await fake.close();
});

const http = createProviderHttpClient({ attemptTimeoutMs: 400, maxAttempts: 3, backoffBaseMs: 1 });
const settings = () => ({
  get CLIENT_ID() {
    return fake.clientId;
  },
  get API_KEY() {
    return fake.apiKey;
  },
  get PRIVATE_KEY() {
    return fake.partnerPrivateKeyPem;
  },
  get WEBHOOK_PUBLIC_KEY() {
    return fake.binancePublicKeyPem;
  },
  MERCHANT_CODE: 'gateway_shop',
  MERCHANT_NAME: 'Gateway Shop',
  get API_URL() {
    return fake.url;
  },
});
const build = (mode: ProviderMode = 'live') =>
  Promise.resolve(binance.create({ ...settings() }, contractContext('binance', mode, { http })));
const open = async (order = sampleOrder('USD'), idempotencyKey = order.paymentId) =>
  (await build()).createCheckout(order, { idempotencyKey, signal: AbortSignal.timeout(3000) });
const sentBody = (index: number) => JSON.parse(fake.requests[index]!.text) as Record<string, unknown>;
const compactId = (paymentId: string) => paymentId.replace(/-/g, '');

/** Signed as Binance's webhook page says, independently of the adapter: SHA256withRSA over body + timestamp, Binance's key. */
function signed(payload: unknown, nowMs: number): SignedWebhook {
  const rawBody = Buffer.from(JSON.stringify(payload));
  const timestamp = String(nowMs);
  const signature = sign('sha256', Buffer.concat([rawBody, Buffer.from(timestamp)]), fake.binancePrivateKey).toString('base64');
  return {
    rawBody,
    headers: { 'x-bn-connect-timestamp': timestamp, 'x-bn-connect-signature': signature, 'x-bn-connect-for': fake.clientId },
  };
}
const orderEvent = (paymentId: string, status: number) => ({
  webhookEventType: 'connect_order_event',
  externalOrderId: compactId(paymentId),
  type: 1,
  businessType: 1,
  status,
  payMethodCode: 'BUY_CARD',
  fiatCurrency: 'EUR',
  cryptoCurrency: 'USDC',
  fiatAmount: '149.99',
  cryptoAmount: '158.1',
});

describeAdapterContract({
  module: binance,
  settings: { live: settings(), test: settings() },
  context: () => ({ http }),
  // The link is Binance's; the pre-order it was made for carries the order.
  readCheckout: (url) => {
    const body = sentBody(fake.requests.length - 1);
    expect(url.searchParams.get('externalOrderId')).toBe(body.externalOrderId);
    return {
      wallet: String(body.address),
      amount: String(body.fiatAmount),
      currency: String(body.fiatCurrency),
      reference: paymentIdOfBinanceOrder(body.externalOrderId) ?? '',
    };
  },
  signWebhook: ({ paymentId, status }, nowMs) => signed(orderEvent(paymentId, status === 'paid' ? 20 : 99), nowMs),
  webhookSignature: signatureInHeader('x-bn-connect-signature', 'base64'),
  hostile: { payload: ({ paymentId }) => orderEvent(paymentId, 20), sign: signed },
});

describe('binance pre-order against a local Binance Pay Onchain', () => {
  it('is a signed JSON POST with the order locked: USDC on Polygon to the wallet, by card, back to the receipt page', async () => {
    const order = sampleOrder('EUR');
    const created = redirectCheckout(await open(order));
    expect(fake.problems).toEqual([]);
    const [request] = fake.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/papi/v1/ramp/connect/buy/pre-order' });
    expect(request!.headers['x-tesla-timestamp']).toBe(String(CONTRACT_NOW_MS));
    // The amount is a JSON number written as the decimal string was: no float in between.
    expect(request!.text.endsWith(',"fiatAmount":149.99}')).toBe(true);
    expect(sentBody(0)).toEqual({
      externalOrderId: compactId(order.paymentId),
      merchantCode: 'gateway_shop',
      merchantName: 'Gateway Shop',
      ts: CONTRACT_NOW_MS,
      fiatCurrency: 'EUR',
      fiatAmount: 149.99,
      cryptoCurrency: 'USDC',
      contractAddress: POLYGON_USDC.native,
      network: 'MATIC',
      address: order.walletAddress,
      payMethodCode: 'BUY_CARD',
      redirectUrl: order.returnUrl,
      failRedirectUrl: order.returnUrl,
      customization: { LOCK_ORDER_ATTRIBUTES: [1, 2, 3, 4, 5, 6, 7], HIDE_SEND: true },
    });
    expect(created).toEqual({
      kind: 'redirect',
      url: `https://app.binance.com/uni-qr/ccnt?externalOrderId=${compactId(order.paymentId)}`,
      providerReference: compactId(order.paymentId),
      expiresAt: CONTRACT_NOW_MS + 15 * 60_000,
    });
  });

  it('the signature is SHA256withRSA over body + timestamp, as openssl computes it with the same key', async () => {
    await open();
    const dir = mkdtempSync(join(tmpdir(), 'binance-'));
    try {
      writeFileSync(join(dir, 'partner.pem'), fake.partnerPrivateKeyPem);
      const [request] = fake.requests;
      const expected = execFileSync('openssl', ['dgst', '-sha256', '-sign', join(dir, 'partner.pem')], {
        input: `${request!.text}${String(request!.headers['x-tesla-timestamp'])}`,
      }).toString('base64');
      // PKCS#1 v1.5 signatures are deterministic: the same key and message give the same bytes.
      expect(request!.headers['x-tesla-signature']).toBe(expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a fresh checkout of the same payment is its own order, letters and digits only, naming the payment; the same id twice is refused', async () => {
    const order = sampleOrder('USD');
    await open(order);
    const again = await open(order, `${order.paymentId}:2`);
    const third = await open(order, `${order.paymentId}:3`);
    expect(fake.problems).toEqual([]);
    const ids = [0, 1, 2].map((index) => String(sentBody(index).externalOrderId));
    // Binance's rule: letters and digits, no special characters (the fake refuses anything else).
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]+$/);
    expect(new Set(ids).size).toBe(3);
    expect(ids[0]).toBe(compactId(order.paymentId));
    expect([again.providerReference, third.providerReference]).toEqual([ids[1], ids[2]]);
    for (const id of ids) expect(paymentIdOfBinanceOrder(id)).toBe(order.paymentId);
    // An order made before this rule was kept (<id>_<n>) still names its payment.
    expect(paymentIdOfBinanceOrder(`${compactId(order.paymentId)}_2`)).toBe(order.paymentId);
    await expect(open(order)).rejects.toMatchObject({ kind: 'refused', message: expect.stringMatching(/duplicate externalOrderId/) });
  });

  it('is never retried: Binance documents no idempotency for a pre-order', async () => {
    fake.script = () => ({ status: 503, body: '' });
    await expect(open()).rejects.toBeInstanceOf(ProviderCheckoutError);
    expect(fake.requests).toHaveLength(1);
  });

  it.each([
    ['a refusal (code, success false)', 'refused', { status: 200, body: '{"code":"345001","message":"illegal param","success":false}' }],
    ['bad credentials (401)', 'refused', { status: 401, body: '{"code":"000002","success":false}' }],
    ['5xx', 'unavailable', { status: 502, body: '' }],
    ['too many (429)', 'unavailable', { status: 429, body: '{}' }],
    ['no link', 'refused', { status: 200, body: '{"code":"000000","success":true,"data":{}}' }],
    ['a link off Binance', 'refused', { status: 200, body: '{"code":"000000","success":true,"data":{"link":"https://evil.example/x"}}' }],
    ['a link over http', 'refused', { status: 200, body: '{"code":"000000","success":true,"data":{"link":"http://app.binance.com/x"}}' }],
    ['not JSON', 'refused', { status: 200, body: 'OK' }],
    ['no answer', 'unavailable', 'hang'],
  ] as const)('%s: a ProviderCheckoutError of kind %s, no key in it', async (_name, kind, answer) => {
    fake.script = () => answer;
    const error = await open().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderCheckoutError);
    expect((error as ProviderCheckoutError).kind).toBe(kind);
    expect((error as Error).message).not.toContain(fake.apiKey);
  });

  it('an amount that is not a two-decimal string is refused before any call; NETWORK overrides the network code', async () => {
    await expect(open({ ...sampleOrder('USD'), amount: '1e3' })).rejects.toBeInstanceOf(ProviderCheckoutError);
    expect(fake.requests).toHaveLength(0);
    const adapter = await binance.create({ ...settings(), NETWORK: 'POLYGON' }, contractContext('binance', 'live', { http }));
    const order = sampleOrder('USD');
    await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: AbortSignal.timeout(3000) });
    expect(sentBody(0).network).toBe('POLYGON');
  });

  it('refuses at boot a key that is not an RSA key; takes base64 DER as Binance prints keys', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => binance.create({ ...settings(), PRIVATE_KEY: ec }, contractContext('binance', 'live', { http }))).toThrow(/RSA/);
    const der = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');
    const adapter = await binance.create(
      { ...settings(), PRIVATE_KEY: der(fake.partnerPrivateKeyPem), WEBHOOK_PUBLIC_KEY: der(fake.binancePublicKeyPem) },
      contractContext('binance', 'live', { http }),
    );
    const order = sampleOrder('USD');
    await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: AbortSignal.timeout(3000) });
    expect(fake.problems).toEqual([]);
  });
});

describe('binance order look-up', () => {
  const signal = () => AbortSignal.timeout(3000);
  const o = sampleOrder('USD');

  it('asks the order by the recorded externalOrderId, signed; its status code read', async () => {
    fake.addOrder({ externalOrderId: `${compactId(o.paymentId)}_2`, status: 20, type: 1, cryptoCurrency: 'USDC' });
    const event = await (await build()).status!(
      { paymentId: o.paymentId, providerReference: `${compactId(o.paymentId)}_2` },
      { signal: signal() },
    );
    expect(fake.problems).toEqual([]);
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/papi/v1/ramp/connect/order' });
    expect(JSON.parse(fake.requests[0]!.text)).toEqual({ externalOrderId: `${compactId(o.paymentId)}_2` });
    expect(event).toEqual({
      match: { paymentId: o.paymentId, providerReference: `${compactId(o.paymentId)}_2` },
      status: 'paid',
      rawStatus: '20 COMPLETED',
      providerReference: `${compactId(o.paymentId)}_2`,
      destination: { asset: 'USDC' },
    });
  });

  it.each(Object.entries(BINANCE_ORDER_STATUS).map(([code, mapped]) => [Number(code), mapped.status] as const))(
    'order status %s maps to %s',
    async (code, status) => {
      fake.addOrder({ externalOrderId: compactId(o.paymentId), status: code, type: 1 });
      await expect((await build()).status!({ paymentId: o.paymentId }, { signal: signal() })).resolves.toMatchObject({ status });
    },
  );

  it.each([
    [96, 'failed', 'WITHDRAW_ABANDONED'],
    [97, 'declined', 'ON_RAMP_FAILED'],
    [98, 'failed', 'WITHDRAW_FAILED'],
    [99, 'failed', 'FAILED'],
  ] as const)('the final failure %s is %s (%s): the customer is told, and may try again', async (code, status, name) => {
    fake.addOrder({ externalOrderId: compactId(o.paymentId), status: code, type: 1 });
    await expect((await build()).status!({ paymentId: o.paymentId }, { signal: signal() })).resolves.toMatchObject({
      status,
      rawStatus: `${code} ${name}`,
      reason: expect.stringMatching(/Binance/),
    });
  });

  it('a status code not documented says nothing yet; an error answer throws so the poller asks again', async () => {
    fake.addOrder({ externalOrderId: compactId(o.paymentId), status: 42, type: 1 });
    await expect((await build()).status!({ paymentId: o.paymentId }, { signal: signal() })).resolves.toBeNull();
    fake.reset();
    await expect((await build()).status!({ paymentId: o.paymentId }, { signal: signal() })).rejects.toThrow(/Binance/);
    fake.script = () => ({ status: 500, body: '' });
    await expect((await build()).status!({ paymentId: o.paymentId }, { signal: signal() })).rejects.toThrow(/Binance/);
  });
});

describe('binance webhook', () => {
  it('X-BN-Connect-For must be our client id; a timestamp in seconds is not the documented milliseconds', async () => {
    const adapter = await build();
    const webhook = signed(orderEvent(sampleOrder('USD').paymentId, 20), CONTRACT_NOW_MS);
    await expect(adapter.verifyWebhook(webhook.rawBody, { ...webhook.headers, 'x-bn-connect-for': 'another' })).rejects.toBeInstanceOf(
      ProviderWebhookError,
    );
    const seconds = signed(orderEvent(sampleOrder('USD').paymentId, 20), Math.floor(CONTRACT_NOW_MS / 1000));
    await expect(adapter.verifyWebhook(seconds.rawBody, seconds.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    await expect(adapter.verifyWebhook(webhook.rawBody, webhook.headers)).resolves.toMatchObject({
      kind: 'event',
      event: { status: 'paid', match: { paymentId: sampleOrder('USD').paymentId } },
      acknowledgement: { statusCode: 200, body: '{"returnCode":"SUCCESS","returnMessage":null}' },
    });
  });

  it('ignores other events, sell and send orders, and undocumented codes', () => {
    const read = (payload: unknown) => binanceWebhookEvent(Buffer.from(JSON.stringify(payload)));
    const paymentId = sampleOrder('USD').paymentId;
    expect(read({ ...orderEvent(paymentId, 20), webhookEventType: 'deposit_status_event' }).kind).toBe('ignored');
    expect(read({ ...orderEvent(paymentId, 20), type: 3 }).kind).toBe('ignored');
    expect(read(orderEvent(paymentId, 42)).kind).toBe('ignored');
    expect(() => read([])).toThrow(/object/);
  });
});
