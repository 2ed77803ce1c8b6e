import { randomBytes } from 'node:crypto';
import { MIN_PRODUCTION_SECRET_CHARACTERS } from '@gateway/domain';
import { createProviderRegistry, POLYGON_USDC, PROVIDER_MODULES, providerEnvName, readProviderSettings } from '../src';
import { NO_HTTP } from './support/adapter-contract';

/** Every provider secret: each signs or verifies what decides a payment, or authenticates the gateway at the provider. */
const SECRETS = [
  'PROVIDER_ALCHEMYPAY_APP_SECRET',
  'PROVIDER_BANXA_API_KEY',
  'PROVIDER_BANXA_HMAC_SECRET',
  'PROVIDER_BINANCE_API_KEY',
  'PROVIDER_GUARDARIAN_API_KEY',
  'PROVIDER_INTERAC_SECRET_KEY',
  'PROVIDER_INTERAC_WEBHOOK_KEY',
  'PROVIDER_MERCURYO_SECRET_KEY',
  'PROVIDER_MERCURYO_SIGN_KEY',
  'PROVIDER_MOONPAY_SECRET_KEY',
  'PROVIDER_MOONPAY_WEBHOOK_KEY',
  'PROVIDER_PAYPAL_SECRET_KEY',
  'PROVIDER_PAYPAL_WEBHOOK_KEY',
  'PROVIDER_REVOLUT_WEBHOOK_SECRET',
  'PROVIDER_SARDINE_CLIENT_SECRET',
  'PROVIDER_SARDINE_WEBHOOK_SECRET',
  'PROVIDER_SIMPLEX_API_KEY',
  'PROVIDER_STRIPE_SECRET_KEY',
  'PROVIDER_STRIPE_WEBHOOK_SECRET',
  'PROVIDER_TRANSAK_API_SECRET',
  'PROVIDER_TRANSFI_PASSWORD',
  'PROVIDER_TRANSFI_WEBHOOK_SECRET',
  'PROVIDER_UPI_API_SECRET',
  'PROVIDER_WERT_API_KEY',
  'PROVIDER_WERTEUR_API_KEY',
];

/** Key-like settings that are no secret: the provider publishes them (widget URLs, publishable keys) or they only name a key. */
const NOT_SECRET = [
  'PROVIDER_BANXA_HMAC_KEY', // Banxa: "the API public key credential", named in the Authorization header
  'PROVIDER_BINANCE_WEBHOOK_PUBLIC_KEY',
  'PROVIDER_INTERAC_API_KEY', // MoonPay's publishable pk_ key, in every widget URL
  'PROVIDER_MOONPAY_API_KEY',
  'PROVIDER_PAYPAL_API_KEY',
  'PROVIDER_RAMPNETWORK_HOST_API_KEY', // Ramp's hostApiKey, in every widget URL
  'PROVIDER_SWIPELUX_API_KEY', // publishable
  'PROVIDER_TOPPER_WEBHOOK_PUBLIC_KEY',
  'PROVIDER_TRANSAK_API_KEY', // Transak's apiKey, in every widget URL
];

/** How the provider's keys begin, where the setting's format says so. */
const FORMAT_PREFIX: Record<string, string> = {
  PROVIDER_INTERAC_SECRET_KEY: 'sk_live_',
  PROVIDER_MOONPAY_SECRET_KEY: 'sk_live_',
  PROVIDER_PAYPAL_SECRET_KEY: 'sk_live_',
  PROVIDER_REVOLUT_WEBHOOK_SECRET: 'wsk_',
  PROVIDER_SARDINE_WEBHOOK_SECRET: 'whsec_',
  PROVIDER_STRIPE_SECRET_KEY: 'sk_live_',
  PROVIDER_STRIPE_WEBHOOK_SECRET: 'whsec_',
};

/** Every provider setting with its schema, by its environment name. */
const SETTINGS = PROVIDER_MODULES.flatMap(({ descriptor }) =>
  Object.entries(descriptor.settings.properties).map(([name, schema]) => ({
    env: providerEnvName(descriptor.id, name),
    schema: schema as { minLength?: number; productionMinLength?: number },
  })),
);

describe('provider secrets in production', () => {
  it('every key-like setting is a secret held to 32 characters or more, or one the provider publishes', () => {
    const keyLike = SETTINGS.filter(({ env }) => /SECRET|PASSWORD|_KEY$/.test(env));
    const unchecked = keyLike
      .filter(({ env }) => !NOT_SECRET.includes(env))
      .filter(({ schema }) => (schema.productionMinLength ?? schema.minLength ?? 0) < MIN_PRODUCTION_SECRET_CHARACTERS)
      .map(({ env }) => env);
    expect(unchecked).toEqual([]);
    expect(
      SETTINGS.filter(({ schema }) => schema.productionMinLength !== undefined)
        .map(({ env }) => env)
        .sort(),
    ).toEqual([...SECRETS].sort());
  });

  it.each(SECRETS)('%s: 31 characters are refused at boot, naming the setting and never the value; 32 are not', (env) => {
    const short = `${FORMAT_PREFIX[env] ?? ''}${randomBytes(24).toString('hex')}`.slice(0, MIN_PRODUCTION_SECRET_CHARACTERS - 1);
    const refused = readProviderSettings(PROVIDER_MODULES, { [env]: short }, { production: true }).problems;
    expect(refused).toContain(
      `${env}: at least 32 characters in production (this one has 31): a short key lets anyone who tries enough forge what it signs`,
    );
    expect(refused.join('\n')).not.toContain(short);
    const long = `${short}x`;
    expect(readProviderSettings(PROVIDER_MODULES, { [env]: long }, { production: true }).problems.join('\n')).not.toMatch(
      new RegExp(`${env}: at least`),
    );
    // Outside production a short placeholder stays usable (the fakes and the local stack).
    expect(readProviderSettings(PROVIDER_MODULES, { [env]: short }).problems.join('\n')).not.toMatch(new RegExp(`${env}: at least`));
  });

  it("refuses Banxa's 8-character HMAC secret at boot (the registry is built before anything listens)", async () => {
    const secret = 'banxa-s8';
    const error = await createProviderRegistry({
      env: {
        PROVIDER_BANXA_PARTNER_REF: 'shop',
        PROVIDER_BANXA_API_KEY: 'banxa-api-key-0123456789abcdefghijkl',
        PROVIDER_BANXA_HMAC_KEY: 'hmac-key-id',
        PROVIDER_BANXA_HMAC_SECRET: secret,
      },
      production: true,
      publicUrl: 'https://pay.example.org',
      token: { chainId: 137, address: POLYGON_USDC.native },
      http: NO_HTTP,
      sharedStore: { get: async () => null, set: async () => false, deleteIfEquals: async () => false },
    }).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/PROVIDER_BANXA_HMAC_SECRET: at least 32 characters in production \(this one has 8\)/);
    expect((error as Error).message).not.toContain(secret);
  });
});
