import { SAMPLE_RATE_FILE } from '@gateway/rates';
import { Type, type Static } from '@sinclair/typebox';
import {
  addressInKeySettings,
  callbackAllowedCidrsSettings,
  chainIdentitySettings,
  checkChainNetwork,
  checkRedisUrl,
  ConfigError,
  databaseSettings,
  hdPublicKeySettings,
  loadConfig,
  metricsServerSettings,
  parseCallbackAllowedCidrs,
  parseCallbackPublicKeys,
  parseRateSourceSettings,
  parseSealingKeys,
  rateSourceSettings,
  type RateSourceConfig,
  redisSettings,
  runtimeSettings,
  serverSettings,
  type CallbackPublicKey,
} from '@gateway/config';
import { parseAddressPin, type AddressPin, type EvmAddress, type NewWalletLimits, type SealingKeyRing } from '@gateway/domain';
import { isPublicTestXpub } from '@gateway/chain';

export const walletControlSettings = Type.Object({
  ...runtimeSettings,
  ...databaseSettings,
  ...serverSettings(3100),
  ...metricsServerSettings(3104),
  ...addressInKeySettings,
  ...chainIdentitySettings,
  ...hdPublicKeySettings,
  ...redisSettings,
  ...rateSourceSettings,
  STATUS_RATE_LIMIT_MAX: Type.Integer({
    default: 60,
    minimum: 1,
    description:
      'requests per client IP per window to /control/payment-status.php, and on its own count to /control/resend-callback.php ' +
      '(tighter: they answer about a payment by its token)',
  }),
  PLATFORM_FEE_BPS: Type.Integer({
    default: 100,
    minimum: 0,
    maximum: 10_000,
    description:
      'platform fee in basis points (100 = 1%), recorded on each wallet when it is created: settlement pays what the wallet records, ' +
      'so a change prices only the wallets created after it; custom-affiliate.php requires merchant_fee + affiliate_fee = 1 - this',
  }),
  AFFILIATE_SHARE_BPS: Type.Integer({
    default: 50,
    minimum: 0,
    maximum: 10_000,
    description:
      'share of each payment, in basis points (50 = 0.5%), paid to the affiliate of a wallet created by affiliate.php, beside the ' +
      'platform fee; recorded on the wallet when it is created',
  }),
  CALLBACK_ALLOW_TEST_DOMAINS: Type.Boolean({
    default: false,
    description: 'accept callbacks on placeholder/test domains (localhost, *.test, example.com); local stack only',
  }),
  ...callbackAllowedCidrsSettings,
  HD_INDEX_RESERVE_BATCH: Type.Integer({
    default: 100,
    minimum: 1,
    maximum: 10000,
    description: 'HD indexes a process reserves from the sequence at once (addresses are derived on the spot)',
  }),
  CALLBACK_PUBLIC_KEYS: Type.String({
    default: '',
    description:
      'public halves of the callback signing keys as kid:key, comma-separated, newest first; key is PEM or base64 SPKI (required in ' +
      'production)',
  }),
  PAYOUT_ADDRESSES: Type.String({
    default: '',
    description:
      'comma-separated payout addresses this gateway pays (a gateway for your own shops: always set it); Create Wallet and the ' +
      'affiliate endpoints refuse any other with 403. Empty: any address (open mode)',
  }),
  AFFILIATE_ADDRESSES: Type.String({
    default: '',
    description:
      "comma-separated affiliate addresses the affiliate endpoints accept, with the operator's consent (no signature needed); any " +
      'other gets 403. ' +
      "Empty: any affiliate whose terms the payout address's owner signed (the signature parameter)",
  }),
  CALLBACK_OWNERSHIP: Type.Union([Type.Literal('path'), Type.Literal('shared')], {
    default: 'path',
    description:
      "path: a callback's origin and path belong to the payout address and terms of its first wallet (another payout or terms get " +
      '409 whatever the query); ' +
      'shared: only the exact URL is bound, so sellers with different payout addresses can share one callback path (a marketplace). ' +
      "shared needs PAYOUT_ADDRESSES in production: anyone could otherwise put a wallet of their own on a shop's callback path",
  }),
  AFFILIATE_WALLETS: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description: 'off: affiliate.php and custom-affiliate.php answer 403 affiliate_disabled (a gateway whose shops have no affiliates)',
  }),
  PAYOUT_WALLET_QUOTA_MAX: Type.Integer({
    default: 1000,
    minimum: 1,
    description:
      'new wallets one payout address may get per window on one callback origin (Create Wallet and the affiliate endpoints ' +
      "together; strangers using a shop's payout address on origins of their own count in windows of their own); more get 429 " +
      'payout_quota_exceeded with Retry-After',
  }),
  PAYOUT_WALLET_QUOTA_WINDOW_SECONDS: Type.Integer({
    default: 3600,
    minimum: 1,
    maximum: 604_800,
    description: 'the window of PAYOUT_WALLET_QUOTA_MAX, in seconds (fixed windows, counted in Redis)',
  }),
  NEW_WALLETS_PER_MINUTE: Type.Integer({
    default: 600,
    minimum: 1,
    description:
      'new wallets the whole gateway creates per minute, whatever the payout address or client (Create Wallet and the affiliate ' +
      'endpoints together, counted in Redis across replicas); more get 429 new_wallet_ceiling with Retry-After, repeats of ' +
      'existing wallets never',
  }),
  NEW_WALLETS_PER_CLIENT_PER_MINUTE: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'new wallets one client (an IPv4 address or an IPv6 /64, as the rate limit counts) may create per minute, below ' +
        'NEW_WALLETS_PER_MINUTE so that no single client takes the whole minute from every other shop; more get 429 ' +
        'new_wallet_client_limit with Retry-After, repeats of existing wallets never. Unset: a tenth of NEW_WALLETS_PER_MINUTE ' +
        '(at least 1). With PAYOUT_ADDRESSES set, new wallets on a callback origin the payout address already has count in neither',
    }),
  ),
  ADMIN_TOKEN: Type.Optional(
    Type.String({
      minLength: 32,
      description: 'bearer token of the /admin routes (at least 32 characters); unset, the routes do not exist',
    }),
  ),
});

export type { CallbackPublicKey };

export interface WalletControlConfig {
  raw: Static<typeof walletControlSettings>;
  keys: SealingKeyRing;
  tokenAddress: EvmAddress;
  /** What merchants verify callback signatures with; the private halves live in the callback-worker only. */
  callbackPublicKeys: CallbackPublicKey[];
  /** Where exchange rates come from (Convert to USD). */
  rates: RateSourceConfig;
  /** CALLBACK_ALLOWED_CIDRS, checked: ranges an IP-literal callback may point into. */
  callbackAllowedCidrs: string[];
  /** PAYOUT_ADDRESSES and AFFILIATE_ADDRESSES; undefined: not pinned (open mode). */
  pins: { payout?: AddressPin; affiliate?: AddressPin };
  /** AFFILIATE_WALLETS: whether affiliate.php and custom-affiliate.php create wallets. */
  affiliateWallets: boolean;
  /** The limits on new wallets: per payout address and callback origin, per client, across the gateway. */
  newWalletLimits: NewWalletLimits;
}

export function loadWalletControlConfig(env: NodeJS.ProcessEnv = process.env): WalletControlConfig {
  const raw = loadConfig(walletControlSettings, env);
  const problems: string[] = [];
  const callbackPublicKeys = parseCallbackPublicKeys(raw.CALLBACK_PUBLIC_KEYS, problems);
  const callbackAllowedCidrs = parseCallbackAllowedCidrs(raw.CALLBACK_ALLOWED_CIDRS, raw.NODE_ENV === 'production', problems);
  // affiliate.php wallets pay the merchant what the two leave: never nothing (merchant_fee=0 is refused too).
  if (raw.PLATFORM_FEE_BPS + raw.AFFILIATE_SHARE_BPS >= 10_000) {
    problems.push('AFFILIATE_SHARE_BPS: together with PLATFORM_FEE_BPS it reaches 10000 (100%) and leaves the merchant nothing');
  }
  checkChainNetwork(raw, raw.NODE_ENV === 'production', problems);
  checkRedisUrl(raw, raw.NODE_ENV === 'production', problems);
  if (raw.NODE_ENV === 'production') {
    if (raw.CALLBACK_ALLOW_TEST_DOMAINS) problems.push('CALLBACK_ALLOW_TEST_DOMAINS: must be false in production');
    if (isPublicTestXpub(raw.HD_XPUB)) problems.push('HD_XPUB: is derived from the public test mnemonic; generate a real seed');
    if (callbackPublicKeys.length === 0) {
      problems.push(
        'CALLBACK_PUBLIC_KEYS: required in production, or merchants cannot verify callbacks (`gateway keys callback` makes a pair)',
      );
    }
  }
  const tokenRules = { tokenAddress: raw.USDC_TOKEN_ADDRESS as EvmAddress };
  const pins = {
    payout: parseAddressPin(raw.PAYOUT_ADDRESSES, 'PAYOUT_ADDRESSES', tokenRules, problems),
    affiliate: parseAddressPin(raw.AFFILIATE_ADDRESSES, 'AFFILIATE_ADDRESSES', tokenRules, problems),
  };
  if (raw.NODE_ENV === 'production' && raw.CALLBACK_OWNERSHIP === 'shared' && pins.payout === undefined) {
    problems.push(
      'CALLBACK_OWNERSHIP: shared needs PAYOUT_ADDRESSES in production: with any payout address allowed, anyone could register a ' +
        "wallet of their own on a shop's callback path",
    );
  }
  const perClientPerMinute = raw.NEW_WALLETS_PER_CLIENT_PER_MINUTE ?? Math.max(1, Math.floor(raw.NEW_WALLETS_PER_MINUTE / 10));
  if (raw.NEW_WALLETS_PER_CLIENT_PER_MINUTE !== undefined && perClientPerMinute >= raw.NEW_WALLETS_PER_MINUTE) {
    problems.push(
      `NEW_WALLETS_PER_CLIENT_PER_MINUTE: ${perClientPerMinute} is not below NEW_WALLETS_PER_MINUTE (${raw.NEW_WALLETS_PER_MINUTE}), ` +
        "so one client could take the gateway's whole minute of new wallets from every other shop; set it well below (unset: a tenth)",
    );
  }
  // Reported with the others: production refuses the sample rates and a test chain in one run.
  let rates: RateSourceConfig | undefined;
  try {
    rates = parseRateSourceSettings(raw, { sampleFile: SAMPLE_RATE_FILE });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  if (problems.length || !rates) throw new ConfigError(problems);
  return {
    raw,
    keys: parseSealingKeys(raw.ADDRESS_IN_KEYS),
    tokenAddress: raw.USDC_TOKEN_ADDRESS as EvmAddress,
    callbackPublicKeys,
    rates,
    callbackAllowedCidrs,
    pins,
    affiliateWallets: raw.AFFILIATE_WALLETS === 'on',
    newWalletLimits: {
      payoutQuota: { max: raw.PAYOUT_WALLET_QUOTA_MAX, windowSeconds: raw.PAYOUT_WALLET_QUOTA_WINDOW_SECONDS },
      perMinute: raw.NEW_WALLETS_PER_MINUTE,
      perClientPerMinute,
      exemptClaimedOrigins: pins.payout !== undefined,
    },
  };
}
