import { generateKeyPairSync, sign } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTRACT_NOW_MS, sampleOrder, type SignedWebhook, readingOf } from '../../../test/support/adapter-contract';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { startBinanceFake } from '../../../test/support/binance-fake';
import { describeSessionAdapter } from '../../../test/support/session-adapter-suite';
import { POLYGON_USDC, ProviderWebhookError } from '../../provider-contract';
import { binance } from './binance-adapter';
import { BINANCE_ORDER_STATUS, binanceWebhookEvent, paymentIdOfBinanceOrder } from './binance-order';

const compactId = (paymentId: string) => paymentId.replace(/-/g, '');

/** Signed as Binance's webhook page says, independently of the adapter: SHA256withRSA over body + timestamp, Binance's key. */
function signed(payload: unknown, nowMs: number): SignedWebhook {
  const rawBody = Buffer.from(JSON.stringify(payload));
  const timestamp = String(nowMs);
  const signature = sign('sha256', Buffer.concat([rawBody, Buffer.from(timestamp)]), kit.fake.binancePrivateKey).toString('base64');
  return {
    rawBody,
    headers: { 'x-bn-connect-timestamp': timestamp, 'x-bn-connect-signature': signature, 'x-bn-connect-for': kit.fake.clientId },
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

const kit = describeSessionAdapter({
  module: binance,
  startFake: () => startBinanceFake(() => CONTRACT_NOW_MS),
  settings: (fake) => ({
    CLIENT_ID: fake.clientId,
    API_KEY: fake.apiKey,
    PRIVATE_KEY: fake.partnerPrivateKeyPem,
    WEBHOOK_PUBLIC_KEY: fake.binancePublicKeyPem,
    MERCHANT_CODE: 'gateway_shop',
    MERCHANT_NAME: 'Gateway Shop',
    API_URL: fake.url,
  }),
  modes: ['live', 'test'],
  contract: (fake) => ({
    // The link is Binance's; the pre-order it was made for carries the order.
    readCheckout: (url) => {
      const body = JSON.parse(fake().requests.at(-1)!.body) as Record<string, unknown>;
      expect(url.searchParams.get('externalOrderId')).toBe(body.externalOrderId);
      return readingOf({
        wallet: body.address,
        amount: body.fiatAmount,
        currency: body.fiatCurrency,
        reference: paymentIdOfBinanceOrder(body.externalOrderId),
      });
    },
    signWebhook: ({ paymentId, status }, nowMs) => signed(orderEvent(paymentId, status === 'paid' ? 20 : 99), nowMs),
    webhookSignature: { header: 'x-bn-connect-signature', encoding: 'base64' },
    hostile: { payload: ({ paymentId }) => orderEvent(paymentId, 20), sign: signed },
  }),
  secret: (fake) => fake.apiKey,
  sends: 'once',
  malformed: {
    // Binance answers a refusal 200, with a code and success false.
    'a refusal answered 200': '{"code":"345001","message":"illegal param","success":false}',
    'no link': '{"code":"000000","success":true,"data":{}}',
    'a link off Binance': '{"code":"000000","success":true,"data":{"link":"https://evil.example/x"}}',
    'a link over http': '{"code":"000000","success":true,"data":{"link":"http://app.binance.com/x"}}',
  },
  // Binance's fake counts its refusals as problems; the tests that expect none say so.
  refusalsAreProblems: true,
  defaultHosts: {
    live: 'https://api.commonservice.io/papi/v1/ramp/connect/buy/pre-order',
    test: 'https://api.commonservice.io/papi/v1/ramp/connect/buy/pre-order',
  },
  status: {
    error: /Binance/,
  },
});
const { build, open } = kit;
const sentBody = (index: number) => JSON.parse(kit.fake.requests[index]!.body) as Record<string, unknown>;

describe('binance pre-order against a local Binance Pay Onchain', () => {
  it('is a signed JSON POST with the order locked: USDC on Polygon to the wallet, by card, back to the receipt page', async () => {
    const order = sampleOrder('EUR');
    const created = redirectCheckout(await open(order));
    expect(kit.fake.problems).toEqual([]);
    const [request] = kit.fake.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/papi/v1/ramp/connect/buy/pre-order' });
    expect(request!.headers['x-tesla-timestamp']).toBe(String(CONTRACT_NOW_MS));
    // The amount is a JSON number written as the decimal string was: no float in between.
    expect(request!.body.endsWith(',"fiatAmount":149.99}')).toBe(true);
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
      writeFileSync(join(dir, 'partner.pem'), kit.fake.partnerPrivateKeyPem);
      const [request] = kit.fake.requests;
      const expected = execFileSync('openssl', ['dgst', '-sha256', '-sign', join(dir, 'partner.pem')], {
        input: `${request!.body}${String(request!.headers['x-tesla-timestamp'])}`,
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
    const again = await open(order, { idempotencyKey: `${order.paymentId}:2` });
    const third = await open(order, { idempotencyKey: `${order.paymentId}:3` });
    expect(kit.fake.problems).toEqual([]);
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

  it('NETWORK overrides the network code', async () => {
    await open(sampleOrder('USD'), { adapter: await build('live', { ...kit.settings(), NETWORK: 'POLYGON' }) });
    expect(sentBody(0).network).toBe('POLYGON');
  });

  it('refuses at boot a key that is not an RSA key; takes base64 DER as Binance prints keys', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => build('live', { ...kit.settings(), PRIVATE_KEY: ec })).toThrow(/RSA/);
    const der = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');
    const settings = {
      ...kit.settings(),
      PRIVATE_KEY: der(kit.fake.partnerPrivateKeyPem),
      WEBHOOK_PUBLIC_KEY: der(kit.fake.binancePublicKeyPem),
    };
    await open(sampleOrder('USD'), { adapter: await build('live', settings) });
    expect(kit.fake.problems).toEqual([]);
  });
});

describe('binance order look-up', () => {
  const signal = () => AbortSignal.timeout(3000);
  const o = sampleOrder('USD');

  it('asks the order by the recorded externalOrderId, signed; its status code read', async () => {
    kit.fake.addOrder({ externalOrderId: `${compactId(o.paymentId)}_2`, status: 20, type: 1, cryptoCurrency: 'USDC' });
    const event = await (await build()).status!(
      { paymentId: o.paymentId, providerReference: `${compactId(o.paymentId)}_2` },
      { signal: signal() },
    );
    expect(kit.fake.problems).toEqual([]);
    expect(kit.fake.requests[0]).toMatchObject({ method: 'POST', path: '/papi/v1/ramp/connect/order' });
    expect(JSON.parse(kit.fake.requests[0]!.body)).toEqual({ externalOrderId: `${compactId(o.paymentId)}_2` });
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
      kit.fake.addOrder({ externalOrderId: compactId(o.paymentId), status: code, type: 1 });
      await expect((await build()).status!({ paymentId: o.paymentId }, { signal: signal() })).resolves.toMatchObject({ status });
    },
  );

  it.each([
    [96, 'failed', 'WITHDRAW_ABANDONED'],
    [97, 'declined', 'ON_RAMP_FAILED'],
    [98, 'failed', 'WITHDRAW_FAILED'],
    [99, 'failed', 'FAILED'],
  ] as const)('the final failure %s is %s (%s): the customer is told, and may try again', async (code, status, name) => {
    kit.fake.addOrder({ externalOrderId: compactId(o.paymentId), status: code, type: 1 });
    await expect((await build()).status!({ paymentId: o.paymentId }, { signal: signal() })).resolves.toMatchObject({
      status,
      rawStatus: `${code} ${name}`,
      reason: expect.stringMatching(/Binance/),
    });
  });

  it('a status code not documented says nothing yet; an error answer throws so the poller asks again', async () => {
    kit.fake.addOrder({ externalOrderId: compactId(o.paymentId), status: 42, type: 1 });
    await expect((await build()).status!({ paymentId: o.paymentId }, { signal: signal() })).resolves.toBeNull();
    kit.fake.reset();
    await expect((await build()).status!({ paymentId: o.paymentId }, { signal: signal() })).rejects.toThrow(/Binance/);
    kit.fake.script = () => ({ status: 500, body: '' });
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

// Order statuses of developers.binance.com/en/docs/products/connect-2.0/basics/7.order-status: none says why.
describe('binance decline kinds', () => {
  const kind = (status: number) => {
    const read = binanceWebhookEvent(
      Buffer.from(
        JSON.stringify({ webhookEventType: 'connect_order_event', type: 1, status, externalOrderId: '6f1a0b1e7c4d4b8e9c1a2b3c4d5e6f70' }),
      ),
    );
    return read.kind === 'event' ? read.event.declineKind : read.why;
  };
  it('97, 96, 98 and 99 are other; 20 none', () => {
    for (const status of [96, 97, 98, 99]) expect(kind(status)).toBe('other');
    expect(kind(20)).toBeUndefined();
  });
});
