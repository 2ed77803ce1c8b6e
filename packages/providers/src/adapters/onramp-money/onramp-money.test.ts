import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { contractContext, describeAdapterContract, sampleOrder } from '../../../test/support/adapter-contract';
import { ProviderWebhookError } from '../../provider-contract';
import { createProviderHttpClient } from '../../support/provider-http-client';
import { upi } from './onramp-money-adapter';
import { onrampMoneyWebhookEvent } from './onramp-money-webhook';
import { redirectCheckout } from '../../../test/support/checkout-target';

/**
 * A local Onramp.money public API: GET /onramp/api/v2/sell/public/allConfig answered in the shape
 * of the "Get all coin details - V2" page (allCoinConfig with each coin's network ids,
 * networkConfig with each id's chainSymbol); usdc is listed on matic20 (id 3) unless a test says otherwise.
 */
const documentedConfig = (usdcNetworks: number[] = [3, 15]) => ({
  status: 1,
  code: 200,
  data: {
    allCoinConfig: {
      usdt: { coinId: 54, coinName: 'Tether', networks: [0, 3, 15] },
      usdc: { coinId: 116, coinName: 'USD Coin', networks: usdcNetworks },
    },
    networkConfig: {
      '0': { chainSymbol: 'erc20', chainName: 'Ethereum Network', networkId: 1 },
      '3': { chainSymbol: 'matic20', chainName: 'Polygon Network', networkId: 137 },
      '15': { chainSymbol: 'bep20', chainName: 'BSC Network', networkId: 56 },
    },
  },
});
let server: Server;
let apiUrl = '';
const seen: string[] = [];
let answer: (() => { status: number; body: string } | 'hang') | undefined;
const http = createProviderHttpClient({ attemptTimeoutMs: 400, maxAttempts: 2, backoffBaseMs: 1 });
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const scripted = answer?.() ?? { status: 200, body: JSON.stringify(documentedConfig()) };
    if (scripted === 'hang') return;
    res.writeHead(scripted.status, { 'content-type': 'application/json' }).end(scripted.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  apiUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
beforeEach(() => {
  seen.length = 0;
  answer = undefined;
});
afterAll(async () => {
  await http.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const live = {
  APP_ID: '1739218',
  API_SECRET: 'onramp-secret-0f3e9a7c21',
  get API_URL() {
    return apiUrl;
  },
};
const test = { APP_ID: '2', API_SECRET: 'onramp-secret-0f3e9a7c21' };

/** A webhook as the Onramp.money webhook page describes it, signed with node:crypto directly. */
function onrampWebhook(data: unknown, secret: string) {
  const rawBody = Buffer.from(JSON.stringify(data));
  const payload = rawBody.toString('base64');
  const signature = createHmac('sha512', secret).update(payload).digest('hex');
  return { rawBody, headers: { 'content-type': 'application/json', 'x-onramp-payload': payload, 'x-onramp-signature': signature } };
}

/** The webhook data of the docs' sample, for an on-ramp order of ours. */
const sampleData = (overrides: object = {}) => ({
  orderId: 918273,
  eventType: 'onramp',
  walletAddress: sampleOrder('INR').walletAddress,
  coinId: 116,
  fiatType: 1,
  paymentType: 1,
  actualFiatAmount: 149.99,
  status: 15,
  statusDescription: 'SUCCESS',
  chainId: 3,
  transactionHash: '0x61ae0c2d5f1b9a3e4d7c8b6a5f4e3d2c1b0a99887766554433221100ffeeddcc',
  merchantRecognitionId: sampleOrder('INR').paymentId,
  coinCode: 'usdc',
  network: 'matic20',
  ...overrides,
});

describeAdapterContract({
  module: upi,
  settings: { live, test },
  context: () => ({ http }),
  // Hosted-mode parameters; fiatType 1 is INR per Onramp's fiat table.
  readCheckout: (url) => ({
    wallet: url.searchParams.get('walletAddress') ?? '',
    amount: url.searchParams.get('fiatAmount') ?? '',
    currency: url.searchParams.get('fiatType') === '1' ? 'INR' : '',
    reference: url.searchParams.get('merchantRecognitionId') ?? '',
  }),
  signWebhook: ({ paymentId, walletAddress, status }) =>
    onrampWebhook(
      sampleData({
        merchantRecognitionId: paymentId,
        walletAddress,
        status: status === 'paid' ? 15 : -1,
        statusDescription: status === 'paid' ? 'SUCCESS' : 'TIMEOUT',
      }),
      live.API_SECRET,
    ),
  // The signed data carries no timestamp a client may rely on (updatedAt is internal).
  webhookHasTimestamp: false,
  webhookSignature: { header: 'x-onramp-signature', encoding: 'hex' },
  hostile: {
    payload: ({ paymentId, walletAddress }) =>
      sampleData({ merchantRecognitionId: paymentId, walletAddress, status: -1, statusDescription: 'TIMEOUT' }),
    sign: (payload) => onrampWebhook(payload, live.API_SECRET),
  },
});

describe('upi checkout URL (Onramp.money hosted mode)', () => {
  const checkout = async (mode: 'live' | 'test') => {
    const adapter = await upi.create(mode === 'live' ? live : test, contractContext('upi', mode, { http }));
    const order = sampleOrder('INR');
    return new URL(
      redirectCheckout(await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: new AbortController().signal })).url,
    );
  };

  it('preselects UPI (paymentMethod 1) for INR and buys USDC on Polygon, returning to the receipt', async () => {
    const url = await checkout('live');
    expect(url.origin + url.pathname).toBe('https://onramp.money/main/buy/');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      appId: live.APP_ID,
      walletAddress: sampleOrder('INR').walletAddress,
      coinCode: 'usdc',
      network: 'matic20',
      fiatAmount: '149.99',
      fiatType: '1',
      paymentMethod: '1',
      merchantRecognitionId: sampleOrder('INR').paymentId,
      redirectUrl: sampleOrder('INR').returnUrl,
    });
  });

  it("uses the only pair Onramp's sandbox has in test mode", async () => {
    const query = (await checkout('test')).searchParams;
    expect([query.get('appId'), query.get('coinCode'), query.get('network')]).toEqual(['2', 'usdt', 'matic20-test']);
  });

  it('refuses any currency but INR', async () => {
    const adapter = await upi.create(live, contractContext('upi', 'live', { http }));
    const order = sampleOrder('EUR');
    await expect(adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: new AbortController().signal })).rejects.toThrow(
      /INR only/,
    );
  });
});

describe('upi webhook signature (x-onramp-signature)', () => {
  it('equals hex HMAC-SHA512 of the x-onramp-payload value as openssl computes it', async () => {
    const webhook = onrampWebhook(sampleData(), live.API_SECRET);
    const byOpenssl = execFileSync('openssl', ['dgst', '-sha512', '-hmac', live.API_SECRET, '-hex', '-r'], {
      input: webhook.headers['x-onramp-payload'],
    })
      .toString()
      .split(' ')[0];
    expect(webhook.headers['x-onramp-signature']).toBe(byOpenssl);
    const adapter = await upi.create(live, contractContext('upi', 'live', { http }));
    await expect(adapter.verifyWebhook(webhook.rawBody, webhook.headers)).resolves.toMatchObject({
      kind: 'event',
      event: { status: 'paid', rawStatus: '15', providerReference: '918273' },
    });
  });

  it('refuses another secret, a body that differs from the signed payload, and a repeated header', async () => {
    const adapter = await upi.create(live, contractContext('upi', 'live', { http }));
    const forged = onrampWebhook(sampleData(), 'not-the-secret');
    await expect(adapter.verifyWebhook(forged.rawBody, forged.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    const genuine = onrampWebhook(sampleData({ status: 0 }), live.API_SECRET);
    const swapped = Buffer.from(JSON.stringify(sampleData({ status: 15 })));
    await expect(adapter.verifyWebhook(swapped, genuine.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    const repeated = {
      ...genuine.headers,
      'x-onramp-signature': [genuine.headers['x-onramp-signature'], genuine.headers['x-onramp-signature']],
    };
    await expect(adapter.verifyWebhook(genuine.rawBody, repeated)).rejects.toBeInstanceOf(ProviderWebhookError);
  });

  it('accepts the same data in another key order or spacing, since the comparison is of JSON values', async () => {
    const adapter = await upi.create(live, contractContext('upi', 'live', { http }));
    const webhook = onrampWebhook(sampleData(), live.API_SECRET);
    const reordered = Buffer.from(JSON.stringify(Object.fromEntries(Object.entries(sampleData()).reverse()), null, 2));
    await expect(adapter.verifyWebhook(reordered, webhook.headers)).resolves.toMatchObject({ kind: 'event' });
  });
});

describe('upi webhook statuses (Onramp on-ramp order codes)', () => {
  it.each([
    [4, 'paid'],
    [5, 'paid'],
    [15, 'paid'],
    [16, 'paid'],
    [0, 'pending'],
    [1, 'pending'],
    [11, 'pending'],
    // The customer's money is in (deposit secured), the crypto not yet sent.
    [2, 'charged'],
    [3, 'charged'],
    [12, 'charged'],
    [13, 'charged'],
    [14, 'charged'],
    [-1, 'failed'],
    [-2, 'failed'],
    [-4, 'failed'],
    [-3, 'declined'],
  ])('%s maps to %s', (code, status) => {
    expect(onrampMoneyWebhookEvent(sampleData({ status: code }))).toMatchObject({
      kind: 'event',
      event: { status, rawStatus: String(code) },
    });
  });

  it('ignores off-ramp events and unknown codes, and names the payment three ways', () => {
    expect(onrampMoneyWebhookEvent(sampleData({ eventType: 'offramp' }))).toMatchObject({ kind: 'ignored' });
    expect(onrampMoneyWebhookEvent(sampleData({ status: 99 }))).toMatchObject({ kind: 'ignored' });
    expect(onrampMoneyWebhookEvent(sampleData())).toMatchObject({
      kind: 'event',
      event: {
        match: { paymentId: sampleOrder('INR').paymentId, providerReference: '918273', walletAddress: sampleOrder('INR').walletAddress },
      },
    });
  });
});

describe('upi asset at boot (live mode): Onramp.money allConfig', () => {
  const boot = (mode: 'live' | 'test' = 'live') =>
    Promise.resolve(upi.create(mode === 'live' ? { ...live } : test, contractContext('upi', mode, { http })));

  it('asks the public allConfig, without a credential, and boots when usdc lists matic20', async () => {
    await expect(boot()).resolves.toMatchObject({ mode: 'live' });
    expect(seen).toEqual(['GET /onramp/api/v2/sell/public/allConfig']);
  });

  it('test mode asks nothing (the sandbox has its own pair)', async () => {
    await boot('test');
    expect(seen).toEqual([]);
  });

  type Answer = () => { status: number; body: string } | 'hang';
  const refusals: [string, Answer, RegExp][] = [
    ['usdc without matic20', () => ({ status: 200, body: JSON.stringify(documentedConfig([0, 15])) }), /does not list usdc on matic20/],
    [
      'no matic20 network at all',
      () => {
        const config = documentedConfig();
        const { '3': _polygon, ...others } = config.data.networkConfig;
        return { status: 200, body: JSON.stringify({ ...config, data: { ...config.data, networkConfig: others } }) };
      },
      /lists no network matic20/,
    ],
    ['status 0', () => ({ status: 200, body: JSON.stringify({ status: 0, code: 400, data: null }) }), /no coin and network config/],
    ['5xx', () => ({ status: 503, body: '' }), /could not be read at boot/],
    ['not JSON', () => ({ status: 200, body: '<html>' }), /could not be read at boot/],
    ['no answer', () => 'hang', /could not be read at boot/],
  ];
  it.each(refusals)('%s: the boot stops, naming why', async (_name, scripted, reason) => {
    answer = scripted;
    await expect(boot()).rejects.toThrow(reason);
  });
});

// The failure codes of https://docs.onramp.money/onramp/response-codes/order-status-codes.
describe('onramp.money decline kinds', () => {
  const kind = (status: number) => {
    const read = onrampMoneyWebhookEvent({
      orderId: 1_234_567,
      eventType: 'onramp',
      status,
      merchantRecognitionId: 'pay-3',
      walletAddress: `0x${'2'.repeat(40)}`,
    });
    return read.kind === 'event' ? read.event.declineKind : read.why;
  };
  it.each([
    [-4, 'other'],
    [-3, 'identity_failed'],
    [-2, 'abandoned'],
    [-1, 'abandoned'],
    [2, undefined],
    [4, undefined],
  ])('code %s is %s', (status, expected) => {
    expect(kind(status)).toBe(expected);
  });
});
