import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import {
  createProviderRegistry,
  defineProvider,
  modeFromSetting,
  PROVIDER_MODULES,
  ProviderConfigurationError,
  POLYGON_USDC,
  type ProviderModule,
  type ProviderRegistryOptions,
} from '../src';
import { moonpay } from '../src/adapters/moonpay/moonpay-adapter';
import { NO_HTTP } from './support/adapter-contract';
import type { SharedKeyValue } from '../src/support/shared-token-store';
import { madeUpKey } from './support/made-up-key';

const sandbox = { baseUrl: 'http://127.0.0.1:3300', signingSecret: randomBytes(32) };
const polygon = { chainId: 137, address: POLYGON_USDC.native };
const moonpayTest = {
  PROVIDER_MOONPAY_API_KEY: 'pk_test_123456789abc',
  PROVIDER_MOONPAY_SECRET_KEY: 'sk_test_abcdefgh1234567890abcdefghijkl',
  PROVIDER_MOONPAY_WEBHOOK_KEY: 'wk_test_zyxwvuts9876543210zyxwvutsrqpon',
};
const moonpayLive = {
  PROVIDER_MOONPAY_API_KEY: madeUpKey('pk', 'live', '123456789abc'),
  PROVIDER_MOONPAY_SECRET_KEY: madeUpKey('sk', 'live', 'abcdefgh1234567890abcdefghijkl'),
  PROVIDER_MOONPAY_WEBHOOK_KEY: madeUpKey('wk', 'live', 'zyxwvuts9876543210zyxwvutsrqpon'),
};

const build = (options: Partial<ProviderRegistryOptions>) =>
  createProviderRegistry({
    env: {},
    production: true,
    publicUrl: 'https://pay.example.org',
    token: polygon,
    http: NO_HTTP,
    sharedStore: NO_SHARED_STORE,
    ...options,
  });

/** The registry's adapters here keep no tokens. */
const NO_SHARED_STORE: SharedKeyValue = {
  get: async () => {
    throw new Error('unexpected use of the shared store');
  },
  set: async () => false,
  deleteIfEquals: async () => false,
};

/** A provider delivering USDC.e, to test the watcher's token rule. */
const bridgedProvider: ProviderModule = defineProvider({
  descriptor: {
    id: 'bridgedramp',
    displayName: 'Bridged Ramp',
    currency: 'any',
    minimum: '10',
    minimumCurrency: 'USD',
    fees: { minBps: 300, maxBps: 500, source: 'https://ramp.example/fees' },
    methods: { offered: [{ method: 'card' }], source: 'https://docs.ramp.example' },
    timeToUsdc: { minutes: 10, source: 'https://docs.ramp.example' },
    countries: { undocumented: 'a test provider' },
    flow: 'url',
    webhook: null,
    delivers: 'bridged',
    settings: Type.Object({ KEY: Type.String({ description: 'key' }) }),
    hosts: { live: 'https://ramp.example', test: 'https://sandbox.ramp.example' },
    docs: 'https://docs.ramp.example',
  },
  modeOf: modeFromSetting,
  create: (_values, context) => ({
    descriptor: bridgedProvider.descriptor,
    mode: context.mode,
    createCheckout: async () => ({ kind: 'redirect' as const, url: 'https://ramp.example/' }),
    verifyWebhook: async () => {
      throw new Error('none');
    },
  }),
});

describe('createProviderRegistry', () => {
  it('on a local stack, the sandbox stands in for every provider without credentials; plugin ids it has no integration for are not offered', async () => {
    const registry = await build({
      production: false,
      sandbox,
      token: { chainId: 31337, address: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
    });
    const ids = registry.offered.map((provider) => provider.id);
    for (const { descriptor } of PROVIDER_MODULES) expect(ids).toContain(descriptor.id);
    expect(ids).toEqual(expect.arrayContaining(['wert', 'transak', 'coinbase', 'transfi']));
    expect(registry.adapters.every((adapter) => adapter.mode === 'sandbox')).toBe(true);
    expect(registry.adapter('bitnovo')).toBeUndefined();
    expect(registry.notOfferedReason('bitnovo')).toMatch(/Bitnovo/);
    expect(registry.describe('cryptix')?.displayName).toBe('Cryptix');
    expect(registry.notOfferedReason('moonpay')).toBeUndefined();
  });

  it('answers Kado, which shut down in 2025, as not offered with that reason, credentials or sandbox notwithstanding', async () => {
    const configured = await build({ env: { PROVIDER_KADO_API_KEY: 'kado-api-key-1', PROVIDER_KADO_MODE: 'live' } });
    expect(configured.adapter('kado')).toBeUndefined();
    expect(configured.notOfferedReason('kado')).toMatch(/Kado shut down in 2025/);
    expect(configured.describe('kado')?.displayName).toBe('Kado');
    const local = await build({
      production: false,
      sandbox,
      token: { chainId: 31337, address: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
    });
    expect(local.adapter('kado')).toBeUndefined();
    expect(local.notOfferedReason('kado')).toMatch(/Kado shut down in 2025/);
  });

  it('answers Robinhood (Connect takes no guest card payment) as not offered with the reason; no sandbox stands in', async () => {
    const local = await build({
      production: false,
      sandbox,
      token: { chainId: 31337, address: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
    });
    expect(local.adapter('robinhood')).toBeUndefined();
    expect(local.offered.map((provider) => provider.id)).not.toContain('robinhood');
    expect(local.notOfferedReason('robinhood')).toMatch(/own Robinhood account.*no public page confirms USDC on Polygon/);
    expect((await build({})).describe('robinhood')?.displayName).toBe('Robinhood');
  });

  it("answers ChangeNOW as not offered: its card on-ramp is Guardarian's, which is offered as itself", async () => {
    const reason = (await build({})).notOfferedReason('changenow');
    expect(reason).toMatch(/card on-ramp, but Guardarian runs it.*use guardarian/);
    expect(reason).not.toMatch(/crypto for crypto/);
  });

  it('an adapter for a provider of the specification is offered as itself with nothing but its module listed', async () => {
    // A module for a provider of the specification (here Wert, as if its adapter were not listed yet), as a new adapter adds
    // it to provider-modules.ts: no other list names it.
    const listed = PROVIDER_MODULES.filter((module) => module.descriptor.id !== 'wert');
    const [id, displayName] = ['wert', 'Wert'];
    const descriptor = { ...bridgedProvider.descriptor, id, displayName, delivers: 'native' as const };
    const coming: ProviderModule = defineProvider({
      descriptor,
      modeOf: modeFromSetting,
      create: async (_values, context) => ({ ...(await bridgedProvider.create({ KEY: 'x' } as never, context)), descriptor }),
    });
    const modules = [...listed, coming];
    const unconfigured = await build({ modules });
    expect(unconfigured.notOfferedReason(id)).toBe('not configured by this operator');
    const prefix = `PROVIDER_${id.toUpperCase()}`;
    const configured = await build({ modules, env: { [`${prefix}_KEY`]: `${id}-key`, [`${prefix}_MODE`]: 'live' } });
    expect(configured.offered.map((provider) => provider.id)).toEqual([id]);
    expect(configured.adapter(id)?.mode).toBe('live');
    const local = await build({
      modules,
      production: false,
      sandbox,
      token: { chainId: 31337, address: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
    });
    expect(local.offered.filter((provider) => provider.id === id)).toHaveLength(1);
  });

  it('refuses the sandbox in production', async () => {
    await expect(build({ sandbox })).rejects.toThrow(/SANDBOX_CHECKOUT: the sandbox \(a simulated checkout\) is refused in production/);
  });

  it('in production offers exactly the providers with credentials, in the mode their keys select', async () => {
    const registry = await build({ env: { ...moonpayTest, ALLOW_PROVIDER_TEST_MODE: true } });
    expect(registry.offered.map((provider) => provider.id)).toEqual(['moonpay']);
    expect(registry.adapter('moonpay')?.mode).toBe('test');
    expect(registry.notOfferedReason('mercuryo')).toBe('not configured by this operator');
    // A provider is known by its module alone: without Wert's listed, nothing names Wert.
    const listed = PROVIDER_MODULES.filter((module) => module.descriptor.id !== 'wert');
    const withoutWert = await build({ modules: listed, env: { ...moonpayTest, ALLOW_PROVIDER_TEST_MODE: true } });
    expect(withoutWert.notOfferedReason('wert')).toBeUndefined();
    expect(withoutWert.describe('wert')).toBeUndefined();
    expect(registry.notOfferedReason('wert')).toBe('not configured by this operator');
    expect(registry.notOfferedReason('transak')).toBe('not configured by this operator');
  });

  it('in production refuses a provider in its test mode unless ALLOW_PROVIDER_TEST_MODE says so, by keys or by MODE', async () => {
    await expect(build({ env: moonpayTest })).rejects.toThrow(
      /PROVIDER_MOONPAY_\*: MoonPay's credentials select its test mode \(https:\/\/buy-sandbox\.moonpay\.com\), refused in production.*ALLOW_PROVIDER_TEST_MODE=true/,
    );
    await expect(build({ env: { ...moonpayTest, ALLOW_PROVIDER_TEST_MODE: false } })).rejects.toThrow(/select its test mode/);
    await expect(build({ env: { PROVIDER_PARTICLE_MODE: 'test' } })).rejects.toThrow(
      /PROVIDER_PARTICLE_\*: Particle's credentials select its test mode/,
    );
    expect((await build({ env: { PROVIDER_PARTICLE_MODE: 'test', ALLOW_PROVIDER_TEST_MODE: 'true' } })).adapter('particle')?.mode).toBe(
      'test',
    );
    // Outside production a test mode needs no permission.
    expect((await build({ env: moonpayTest, production: false })).adapter('moonpay')?.mode).toBe('test');
  });

  it('in production refuses a webhook key shorter than 32 characters, naming the setting and not the value', async () => {
    const short = ['wk', 'live', '1234'].join('_');
    const error = await build({ env: { ...moonpayLive, PROVIDER_MOONPAY_WEBHOOK_KEY: short } }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/PROVIDER_MOONPAY_WEBHOOK_KEY: at least 32 characters in production \(this one has 12\)/);
    expect((error as Error).message).not.toContain(short);
    const revolut = {
      PROVIDER_REVOLUT_PARTNER_ID: 'fb48770a-51b0-402e-8d25-33474f474aa2',
      PROVIDER_REVOLUT_WEBHOOK_SECRET: 'wsk_12345678',
    };
    await expect(build({ env: revolut })).rejects.toThrow(/PROVIDER_REVOLUT_WEBHOOK_SECRET: at least 32 characters in production/);
    // Mercuryo's widget Secret signs every checkout URL: the operator sets it, so a short one is refused too.
    const mercuryo = {
      PROVIDER_MERCURYO_WIDGET_ID: 'fb48770a-51b0-402e-8d25-33474f474aa2',
      PROVIDER_MERCURYO_SECRET_KEY: 'mercuryo-secret-1',
      PROVIDER_MERCURYO_SIGN_KEY: 'mercuryo-sign-key-0123456789abcdefghij',
    };
    await expect(build({ env: mercuryo })).rejects.toThrow(
      /PROVIDER_MERCURYO_SECRET_KEY: at least 32 characters in production \(this one has 17\)/,
    );
    const longSecret = { ...mercuryo, PROVIDER_MERCURYO_SECRET_KEY: 'mercuryo-secret-0123456789abcdefghij' };
    expect((await build({ env: longSecret })).adapter('mercuryo')?.mode).toBe('live');
    expect((await build({ env: moonpayLive })).adapter('moonpay')?.mode).toBe('live');
    expect((await build({ env: { ...moonpayLive, PROVIDER_MOONPAY_WEBHOOK_KEY: short }, production: false })).offered).toHaveLength(1);
  });

  it('in production refuses Binance until the operator says Binance enabled the order-attribute lock on the merchant', async () => {
    const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
    const binance = {
      PROVIDER_BINANCE_CLIENT_ID: 'gateway-client',
      PROVIDER_BINANCE_API_KEY: 'binance-api-key-0123456789abcdefghij',
      PROVIDER_BINANCE_PRIVATE_KEY: rsa().privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      PROVIDER_BINANCE_WEBHOOK_PUBLIC_KEY: rsa().publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      PROVIDER_BINANCE_MERCHANT_CODE: 'shop_1',
      PROVIDER_BINANCE_MERCHANT_NAME: 'Shop',
    };
    // Without the lock Binance ignores LOCK_ORDER_ATTRIBUTES: the customer could change the address, network or amount.
    await expect(build({ env: binance })).rejects.toThrow(/PROVIDER_BINANCE_ORDER_LOCK: must be on in production .*LOCK_ORDER_ATTRIBUTES/);
    await expect(build({ env: { ...binance, PROVIDER_BINANCE_ORDER_LOCK: 'off' } })).rejects.toThrow(/PROVIDER_BINANCE_ORDER_LOCK/);
    expect((await build({ env: { ...binance, PROVIDER_BINANCE_ORDER_LOCK: 'on' } })).adapter('binance')?.mode).toBe('live');
    // A local stack or a test deployment is not held to it.
    expect((await build({ env: binance, production: false })).adapter('binance')?.mode).toBe('live');
  });

  it('offers nothing when nothing is configured (Process Payment then says so per provider)', async () => {
    const registry = await build({});
    expect(registry.offered).toEqual([]);
  });

  it('names every problem of a half-configured or malformed provider, never a value', async () => {
    const secret = madeUpKey('sk', 'live', 'THISISSECRET99');
    const error = await build({
      env: {
        PROVIDER_MOONPAY_API_KEY: madeUpKey('pk', 'live', '123456789abc'),
        PROVIDER_MOONPAY_SECRET_KEY: `${secret} `,
        PROVIDER_MERCURYO_MODE: 'test',
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderConfigurationError);
    const message = (error as Error).message;
    expect(message).toMatch(/PROVIDER_MOONPAY_SECRET_KEY: not in the form expected/);
    expect(message).toMatch(/PROVIDER_MOONPAY_WEBHOOK_KEY: required once any of its settings is given/);
    expect(message).toMatch(/PROVIDER_MERCURYO_MODE: set, but none of mercuryo's credentials are/);
    expect(message).not.toContain(secret);
  });

  it('switches on a provider that takes no credentials by its MODE alone', async () => {
    const registry = await build({ env: { PROVIDER_PARTICLE_MODE: 'live' } });
    expect(registry.offered.map((provider) => provider.id)).toEqual(['particle']);
  });

  it("refuses a MODE that contradicts MoonPay's keys", async () => {
    await expect(build({ env: { ...moonpayTest, PROVIDER_MOONPAY_MODE: 'live' } })).rejects.toThrow(
      /PROVIDER_MOONPAY_\*: PROVIDER_MOONPAY_MODE=live contradicts the test keys/,
    );
  });

  it('refuses a live provider delivering a USDC the chain watcher does not follow, on Polygon only', async () => {
    const modules = [moonpay, bridgedProvider];
    const env = { PROVIDER_BRIDGEDRAMP_KEY: 'k' };
    await expect(build({ modules, env })).rejects.toThrow(
      /Bridged Ramp delivers USDC\.e \(0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174\) but USDC_TOKEN_ADDRESS is 0x3c49/,
    );
    expect((await build({ modules, env, token: { chainId: 137, address: POLYGON_USDC.bridged } })).offered.map((p) => p.id)).toEqual([
      'bridgedramp',
    ]);
    const testMode = { ...env, PROVIDER_BRIDGEDRAMP_MODE: 'test', ALLOW_PROVIDER_TEST_MODE: true };
    expect((await build({ modules, env: testMode })).adapter('bridgedramp')?.mode).toBe('test');
  });

  it('gives each adapter its webhook URL under PUBLIC_URL', async () => {
    let seen = '';
    const recording: ProviderModule = {
      ...bridgedProvider,
      create: (values, context) => {
        seen = context.webhookUrl;
        return bridgedProvider.create(values, context);
      },
    };
    await build({ modules: [recording], env: { PROVIDER_BRIDGEDRAMP_KEY: 'k' }, token: { chainId: 137, address: POLYGON_USDC.bridged } });
    expect(seen).toBe('https://pay.example.org/webhooks/bridgedramp');
  });
});
