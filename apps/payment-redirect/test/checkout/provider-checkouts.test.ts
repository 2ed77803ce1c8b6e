import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { startAclRedis, type AclRedis } from '@gateway/app-testkit';
import { sealAddressIn, type EvmAddress } from '@gateway/domain';
import { PROVIDER_MODULES, providerEnvName } from '@gateway/providers';
import { SAMPLE_RATE_FILE } from '@gateway/rates';
import type { PaymentRedirectConfig } from '../../src/config';
import {
  FAKE_API_KEY,
  FAKE_API_SECRET,
  startTransakFake,
  type TransakFake,
} from '../../../../packages/providers/test/support/transak-fake';
import { STRIPE_FAKE_SECRET, startStripeFake, type StripeFake } from '../../../../packages/providers/test/support/stripe-fake';
import { FAKE_TRANSFI, startTransfiFake, type TransfiFake } from '../../../../packages/providers/test/support/transfi-fake';
import { startGuardarianFake, type GuardarianFake } from '../../../../packages/providers/test/support/guardarian-fake';
import { startRampQuoteFake, type QuoteFake } from '../../../../packages/providers/test/support/quote-api-fake';
import { NO_QUOTE_API } from '../../../../packages/providers/test/support/no-quote-api';
import { startWertFake, type WertFake } from '../../../../packages/providers/test/support/wert-fake';
import { startCoinbaseFake, type CoinbaseFake } from '../../../../packages/providers/test/support/coinbase-fake';
import { startBinanceFake, type BinanceFake } from '../../../../packages/providers/test/support/binance-fake';
import { SARDINE_FAKE_CLIENT, startSardineFake, type SardineFake } from '../../../../packages/providers/test/support/sardine-fake';
import {
  SIMPLEX_FAKE_API_KEY,
  SIMPLEX_FAKE_PARTNER,
  startSimplexFake,
  type SimplexFake,
} from '../../../../packages/providers/test/support/simplex-fake';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';

// Each provider with its documented test (sandbox) credentials' shape; values are made up.
const topperKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
const cdpKey = generateKeyPairSync('ed25519');
const cdpJwk = cdpKey.privateKey.export({ format: 'jwk' });
/** Wert's account, for wert and werteur alike: its session API is a local fake, read when the app is built. */
const WERT_ACCOUNT = {
  PARTNER_ID: '01GJMAVBKQYNKGCFSPE4QTN4AC',
  MODE: 'test',
  get API_KEY() {
    return wertFake.apiKey;
  },
  get API_URL() {
    return wertFake.url;
  },
};

/** The settings of a provider whose quotes this file does not test, with its quote host on NO_QUOTE_API. */
const quotesUnanswered = (settings: Record<string, string>): Record<string, string> => ({ ...settings, API_URL: NO_QUOTE_API });

const TEST_CREDENTIALS: Record<string, Record<string, string>> = {
  moonpay: quotesUnanswered({
    API_KEY: 'pk_test_123456789abc',
    SECRET_KEY: 'sk_test_abcdefgh1234ijklmnop5678qrstuv',
    WEBHOOK_KEY: 'wk_test_zyxwvuts9876543210zyxwvutsrqpon',
    MODE: '',
  }),
  interac: quotesUnanswered({
    API_KEY: 'pk_test_123456789abc',
    SECRET_KEY: 'sk_test_abcdefgh1234ijklmnop5678qrstuv',
    WEBHOOK_KEY: 'wk_test_zyxwvuts9876543210zyxwvutsrqpon',
    MODE: '',
  }),
  paypal: quotesUnanswered({
    API_KEY: 'pk_test_123456789abc',
    SECRET_KEY: 'sk_test_abcdefgh1234ijklmnop5678qrstuv',
    WEBHOOK_KEY: 'wk_test_zyxwvuts9876543210zyxwvutsrqpon',
    MODE: '',
  }),
  // Its quote API is a local Ramp (Process Payment asks it for the order's USDC); the widget on the documented demo host.
  rampnetwork: {
    HOST_API_KEY: 'demo_host_api_key_1',
    MODE: 'test',
    get API_URL() {
      return rampQuoteFake.url;
    },
  },
  banxa: quotesUnanswered({
    PARTNER_REF: 'myshop',
    API_KEY: 'banxa-key-0123456789abcdefghijklmnop',
    HMAC_KEY: 'banxa-hmac-key-1',
    HMAC_SECRET: 'banxa-hmac-secret-0123456789abcdefgh',
    MODE: 'test',
  }),
  alchemypay: quotesUnanswered({ APP_ID: 'f83Is2y7L425rxl8', APP_SECRET: 'alchemy-secret-0123456789abcdefghijk', MODE: 'test' }),
  mercuryo: quotesUnanswered({
    WIDGET_ID: uuid,
    SECRET_KEY: 'mercuryo-secret-0123456789abcdefghij',
    SIGN_KEY: 'mercuryo-sign-key-0123456789abcdefgh',
    MODE: 'test',
  }),
  topper: {
    WIDGET_ID: uuid,
    KEY_ID: uuid,
    PRIVATE_KEY: topperKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    WEBHOOK_PUBLIC_KEY: JSON.stringify({ ...topperKey.publicKey.export({ format: 'jwk' }), alg: 'ES256' }),
    MODE: 'test',
  },
  upi: { APP_ID: '2', API_SECRET: 'onramp-secret-0123456789abcdefghijkl', MODE: 'test' },
  revolut: { PARTNER_ID: uuid, WEBHOOK_SECRET: 'wsk_r59a4HfWVAKycbCaNO1RvgCJec02gRd8', MODE: 'test' },
  swipelux: { API_KEY: uuid, MODE: 'test' },
  utorg: { SID: 'utorg-sid-1', MODE: 'test' },
  unlimit: { MERCHANT_ID: uuid, MODE: 'test' },
  // Particle takes no credentials (and documents no sandbox): its MODE switches it on.
  particle: { MODE: 'test' },
  stripe: {
    SECRET_KEY: STRIPE_FAKE_SECRET.test,
    WEBHOOK_SECRET: 'whsec_5f3a1c9e7b2d4f6a8c0e1b3d5f7a9c2e',
    get API_URL() {
      return stripeFake.url;
    },
  },
  // A session provider: its API hosts are a local Transak (started below), its widget on the documented test host.
  transak: {
    API_KEY: FAKE_API_KEY,
    API_SECRET: FAKE_API_SECRET,
    MODE: 'test',
    get API_URL() {
      return transakFake.url;
    },
    get GATEWAY_URL() {
      return transakFake.url;
    },
  },
  // A session provider: its API host is a local TransFi (started below), its checkout on the documented sandbox host.
  transfi: {
    USERNAME: FAKE_TRANSFI.username,
    PASSWORD: FAKE_TRANSFI.password,
    MID: FAKE_TRANSFI.mid,
    WEBHOOK_SECRET: 'whk_9f2c4e7a1b3d5f8a0c2e4b6d8f1a3c5e',
    MODE: 'test',
    get API_URL() {
      return transfiFake.url;
    },
  },
  // Session providers whose API is a local fake; the customer goes to their documented test checkout host.
  guardarian: {
    MODE: 'test',
    get API_KEY() {
      return guardarianFake.apiKey;
    },
    get API_URL() {
      return guardarianFake.url;
    },
  },
  wert: WERT_ACCOUNT,
  // Wert in EUR: the Wert account's settings under its own prefix.
  werteur: WERT_ACCOUNT,
  // A CDP Ed25519 key (base64 of seed and public key); the session token from a local CDP API.
  coinbase: {
    KEY_ID: uuid,
    KEY_SECRET: Buffer.concat([Buffer.from(cdpJwk.d!, 'base64url'), Buffer.from(cdpJwk.x!, 'base64url')]).toString('base64'),
    MODE: 'test',
    get API_URL() {
      return coinbaseFake.url;
    },
  },
  // A pre-order on a local Binance Pay Onchain (signed with the partner key it holds); its link is on binance.com.
  binance: {
    MERCHANT_CODE: 'gateway_shop',
    MERCHANT_NAME: 'Gateway Shop',
    MODE: 'test',
    // The operator's word that Binance enabled the order-attribute lock: production requires it.
    ORDER_LOCK: 'on',
    get CLIENT_ID() {
      return binanceFake.clientId;
    },
    get API_KEY() {
      return binanceFake.apiKey;
    },
    get PRIVATE_KEY() {
      return binanceFake.partnerPrivateKeyPem;
    },
    get WEBHOOK_PUBLIC_KEY() {
      return binanceFake.binancePublicKeyPem;
    },
    get API_URL() {
      return binanceFake.url;
    },
  },
  // The client token from a local Sardine; the customer goes to its documented sandbox checkout.
  sardine: {
    CLIENT_ID: SARDINE_FAKE_CLIENT.id,
    CLIENT_SECRET: SARDINE_FAKE_CLIENT.secret,
    WEBHOOK_SECRET: 'whsec_C2FyZGluZS13ZWJob29rLXNpZ25pbmctc2VjcmV0',
    MODE: 'test',
    get API_URL() {
      return sardineFake.url;
    },
  },
  // Quote and payment data on a local Simplex; the browser posts the form to the documented sandbox checkout.
  simplex: {
    API_KEY: SIMPLEX_FAKE_API_KEY,
    PARTNER: SIMPLEX_FAKE_PARTNER,
    MODE: 'test',
    get API_URL() {
      return simplexFake.url;
    },
  },
};
let transakFake: TransakFake;
let stripeFake: StripeFake;
let transfiFake: TransfiFake;
let guardarianFake: GuardarianFake;
let rampQuoteFake: QuoteFake;
let wertFake: WertFake;
let simplexFake: SimplexFake;
let coinbaseFake: CoinbaseFake;
let sardineFake: SardineFake;
let binanceFake: BinanceFake;

function providerEnv(id: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(TEST_CREDENTIALS[id] ?? {})
      .filter(([, value]) => value !== '')
      .map(([name, value]) => [providerEnvName(id, name), value]),
  );
}

// One wallet takes every provider's payments here: more than one order's ORDER_ATTEMPTS_MAX.
const fixture = paymentRedirectFixture('provider-checkouts', { SANDBOX_CHECKOUT: 'off', ORDER_ATTEMPTS_MAX: '1000' });
let dir: string;
const temporary = '0x4444444444444444444444444444444444444444' as EvmAddress;
// Production connects each app as its own Redis user: a private redis-server with the apps' users.
let acl: AclRedis;
const productionApps: FastifyInstance[] = [];

beforeAll(async () => {
  acl = await startAclRedis('checkouts');
  dir = mkdtempSync(join(tmpdir(), 'rates-'));
  // A table of the operator's own (production refuses the sample's rates, wherever they lie): one rate differs.
  const sample = JSON.parse(readFileSync(SAMPLE_RATE_FILE, 'utf8')) as { rates: Record<string, string> };
  writeFileSync(join(dir, 'rates.json'), JSON.stringify({ ...sample, rates: { ...sample.rates, NZD: '1.67' } }));
  transakFake = await startTransakFake();
  stripeFake = await startStripeFake();
  transfiFake = await startTransfiFake();
  guardarianFake = await startGuardarianFake(undefined, 'https://payments-staging.guardarian.com');
  rampQuoteFake = await startRampQuoteFake('demo_host_api_key_1');
  wertFake = await startWertFake();
  simplexFake = await startSimplexFake();
  sardineFake = await startSardineFake();
  binanceFake = await startBinanceFake();
  coinbaseFake = await startCoinbaseFake({ keyId: uuid, publicKey: cdpKey.publicKey, algorithm: 'EdDSA' });
});
afterAll(async () => {
  for (const app of productionApps) await app.close();
  await acl.stop();
  rmSync(dir, { recursive: true, force: true });
  await transakFake.close();
  await stripeFake.close();
  await transfiFake.close();
  await guardarianFake.close();
  expect(rampQuoteFake.problems).toEqual([]);
  await rampQuoteFake.close();
  await wertFake.close();
  await sardineFake.close();
  expect(binanceFake.problems).toEqual([]);
  await binanceFake.close();
  expect(simplexFake.problems).toEqual([]);
  await simplexFake.close();
  expect(coinbaseFake.problems).toEqual([]);
  await coinbaseFake.close();
});

/** payment-redirect in production with one provider's test credentials (test mode allowed explicitly) and nothing else. */
async function productionWith(id: string): Promise<{ app: FastifyInstance; config: PaymentRedirectConfig }> {
  const config = fixture.config({
    NODE_ENV: 'production',
    ALLOW_PROVIDER_TEST_MODE: 'true',
    PUBLIC_URL: 'https://pay.example.org',
    RATE_SOURCE: 'file',
    RATE_FILE: join(dir, 'rates.json'),
    REDIS_URL: acl.urlOf('payment-redirect'),
    REDIS_PREFIX: acl.prefix,
    ...providerEnv(id),
  });
  const app = await fixture.build(config, { redis: acl.testRedisOf('payment-redirect') });
  productionApps.push(app);
  return { app, config };
}

describe('Process Payment with each provider configured with its test credentials', () => {
  it('has test credentials here for every provider with an adapter', () => {
    expect(Object.keys(TEST_CREDENTIALS).sort()).toEqual(PROVIDER_MODULES.map((module) => module.descriptor.id).sort());
  });

  it.each(PROVIDER_MODULES.map((module) => [module.descriptor.id, module] as const))(
    '%s: sends the browser to its documented test host, and offers nothing else',
    async (id, module) => {
      const { app, config } = await productionWith(id);
      const addressIn = sealAddressIn(temporary, config.keys);
      await fixture
        .insertWallet({ temporary, addressIn, callbackUrl: `https://shop.io/ipn?order=${id}-${randomBytes(4).toString('hex')}` })
        .catch(() => undefined);
      const currency = module.descriptor.currency === 'any' ? 'USD' : module.descriptor.currency;
      const order = { address: addressIn, amount: '2500.00', provider: id, email: 'jane@shop.io', currency };
      const response = await app.inject({ url: '/process-payment.php', query: order });
      const host = new URL(module.descriptor.hosts.test).hostname;
      let location: URL;
      if (response.statusCode === 200) {
        // A form checkout: a page that posts it, and a CSP whose form-action admits that origin alone.
        location = new URL(/<form id="provider-form" method="post" action="([^"]+)">/.exec(response.body)![1]!);
        const policy = String(response.headers['content-security-policy'])
          .split(';')
          .map((directive) => directive.trim());
        expect(policy.filter((directive) => directive.startsWith('form-action'))).toEqual([`form-action ${location.origin}`]);
      } else {
        expect([response.statusCode, response.body]).toEqual([302, '']);
        location = new URL(response.headers.location as string);
      }
      expect(location.protocol).toBe('https:');
      expect(location.hostname === host || location.hostname.endsWith(`.${host}`)).toBe(true);
      // Every other provider id is answered as not offered.
      const other = PROVIDER_MODULES.find((candidate) => candidate.descriptor.id !== id && candidate.descriptor.currency === 'any')!;
      const refused = await app.inject({
        url: '/process-payment.php',
        query: { ...order, provider: other.descriptor.id, currency: 'USD' },
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'provider_not_offered', param: 'provider' });
      await app.close();
    },
  );
});

describe("Simplex's pushed event (unsigned)", () => {
  it('is answered 2xx as a hint about the payment it names, never recorded from its body', async () => {
    const { app, config } = await productionWith('simplex');
    const addressIn = sealAddressIn(temporary, config.keys);
    await fixture
      .insertWallet({ temporary, addressIn, callbackUrl: `https://shop.io/ipn?order=simplex-${randomBytes(4).toString('hex')}` })
      .catch(() => undefined);
    const page = await app.inject({
      url: '/process-payment.php',
      query: { address: addressIn, amount: '2500.00', provider: 'simplex', email: 'jane@shop.io', currency: 'USD' },
    });
    const paymentId = /name="return_url_success" value="https:\/\/pay\.example\.org\/payment\/([0-9a-f-]{36})"/.exec(page.body)![1]!;
    const simplexPaymentId = /name="payment_id" value="([0-9a-f-]{36})"/.exec(page.body)![1]!;
    const event = {
      event_id: 'ev-1',
      name: 'payment_simplexcc_crypto_sent',
      payment: { id: simplexPaymentId, status: 'approved', partner_end_user_id: paymentId },
      timestamp: '2026-11-25T12:00:00Z',
    };
    const pushed = await app.inject({
      method: 'POST',
      url: '/webhooks/simplex',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(event),
    });
    expect(pushed.statusCode).toBe(200);
    expect(pushed.headers['x-webhook-outcome']).toBe('hint');
    const { rows } = await fixture.db
      .appPool('payment-redirect')
      .query('SELECT provider_status, provider_raw_status FROM payments WHERE id = $1', [paymentId]);
    expect(rows).toEqual([{ provider_status: null, provider_raw_status: null }]);
    await app.close();
  });
});
