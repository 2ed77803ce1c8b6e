import { Type, type Static } from '@sinclair/typebox';
import {
  addressInKeySettings,
  chainIdentitySettings,
  checkChainNetwork,
  checkRedisUrl,
  checkPublicUrl,
  ConfigError,
  databaseSettings,
  loadConfig,
  metricsServerSettings,
  parseRateSourceSettings,
  parseSealingKeys,
  parseSecretBytes,
  rateSourceSettings,
  type RateSourceConfig,
  redisSettings,
  runtimeSettings,
  serverSettings,
} from '@gateway/config';
import {
  DEFAULT_ORDER_ATTEMPTS_MAX,
  DEFAULT_ORDER_WINDOW_HOURS,
  DEFAULT_QUOTE_CACHE_MS,
  DEFAULT_QUOTE_TIMEOUT_MS,
  MAX_ORDER_TOLERANCE_BPS,
  DEFAULT_SECOND_CHANCES_MAX,
  DEFAULT_STATUS_POLL_SCHEDULE,
  DEFAULT_RECOVERY_ABANDONED_AFTER_MINUTES,
  DEFAULT_RECOVERY_DELAY_MINUTES,
  RECOVERY_ABANDONED_AFTER_BOUNDS_MINUTES,
  RECOVERY_DELAY_BOUNDS_MINUTES,
  recoveryTiming,
  smtpUrlRefusal,
  type RecoveryTiming,
  CHECKOUT_RANKING_WINDOW_DAYS_SETTING,
  CHECKOUT_RANKING_MIN_ATTEMPTS_SETTING,
  CIRCUIT_SETTINGS,
  DEFAULT_CHECKOUT_RANKING_MIN_ATTEMPTS,
  DEFAULT_CHECKOUT_RANKING_WINDOW_DAYS,
  GatewayError,
  parseCircuitSettings,
  parseRankingMinAttempts,
  parseRankingWindowDays,
  type CircuitSettings,
  type SealingKeyRing,
  type StatusPollSchedule,
} from '@gateway/domain';
import { PROVIDER_MODULES, providerEnvironmentSchema } from '@gateway/providers';
import { SAMPLE_RATE_FILE } from '@gateway/rates';

export const paymentRedirectSettings = Type.Object({
  ...runtimeSettings,
  ...databaseSettings,
  ...serverSettings(3200),
  ...metricsServerSettings(3105),
  ...addressInKeySettings,
  ...redisSettings,
  ...chainIdentitySettings,
  PUBLIC_URL: Type.String({
    default: 'http://127.0.0.1:3200',
    pattern: '^https?://[^/?#]+/?$',
    description:
      'public base URL of this host ({payment_url}): providers send the customer back to its receipt pages and post webhooks to it; ' +
      'https and a public host in production (a name must resolve at boot, to public addresses only)',
  }),
  EXPLORER_TX_URL: Type.String({
    default: 'https://polygonscan.com/tx/{tx}',
    pattern: '^(none|https?://[^\\s]*\\{tx\\}[^\\s]*)$',
    description: 'block explorer link of a transaction, {tx} standing for its hash; none for a chain without one (a local chain)',
  }),
  CHECKOUT_TIMEOUT_MS: Type.Optional(
    Type.Integer({
      minimum: 1000,
      maximum: 60_000,
      description:
        "the longest Process Payment waits for any provider's checkout (all its calls, retries included) before it shows the " +
        "customer the error page; unset, each provider's own deadline applies (its descriptor's), set, the shorter of the two",
    }),
  ),
  CUSTOMER_PAYS_FEES: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'off',
    description:
      "on: the customer pays the provider's fees on top, so the shop receives the order's full value after the gateway's fee, " +
      'where the provider can sell a fixed amount of USDC (Stripe, MoonPay, Transak); others keep the fees inside the order ' +
      "amount. A wallet's own customer_pays_fee (Create Wallet) overrides it",
  }),
  ORDER_ATTEMPTS_MAX: Type.Integer({
    default: DEFAULT_ORDER_ATTEMPTS_MAX,
    minimum: 1,
    maximum: 1_000_000,
    description:
      'payments one order (one address_in) may have: Process Payment, the hosted checkout and second chances alike; one more is ' +
      'refused with 409 order_attempts_exhausted (a customer makes a handful; raise it for a shop that reuses one callback URL for every order)',
  }),
  ORDER_TOLERANCE_BPS: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_ORDER_TOLERANCE_BPS,
      description:
        'how far (basis points of what an order should bring) the USDC that arrived may fall short or run over and the order still ' +
        "be paid; unset, 1 % for a provider's quote and 1 % plus half its documented fee range for an estimate. A merchant may narrow " +
        "it per wallet (Create Wallet's order_tolerance_bps)",
    }),
  ),
  ORDER_WINDOW_HOURS: Type.Integer({
    default: DEFAULT_ORDER_WINDOW_HOURS,
    minimum: 1,
    maximum: 720,
    description:
      "how long after a payment attempt's provider order is created its USDC still belongs to the order; a deposit later makes the " +
      'order late (the merchant decides). A first purchase with identity checks can take hours',
  }),
  QUOTE_CACHE_MS: Type.Integer({
    default: DEFAULT_QUOTE_CACHE_MS,
    minimum: 5_000,
    maximum: 3_600_000,
    description:
      "how long a provider's quote for a currency and amount band is used before it is asked again: at most one quote call per " +
      'provider and band in that time, however many pages load; an older one is still shown for half as long while one request ' +
      'refreshes it in the background. A failed quote makes its rows estimates for this long',
  }),
  QUOTE_TIMEOUT_MS: Type.Integer({
    default: DEFAULT_QUOTE_TIMEOUT_MS,
    minimum: 200,
    maximum: 30_000,
    description:
      "the longest one call to a provider's quote API may take; past it the provider's rows show the estimate from its documented " +
      'fees. A page or Process Payment waits less (Process Payment 1.5 s) and the answer still fills the cache for the next',
  }),
  SECOND_CHANCES_MAX: Type.Integer({
    default: DEFAULT_SECOND_CHANCES_MAX,
    minimum: 0,
    maximum: 100,
    description: "second chances (the receipt's other providers) one payment may give; one more is refused with 409; 0 turns them off",
  }),
  SANDBOX_CHECKOUT: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'off',
    description:
      'on: the sandbox provider (a simulated checkout) stands in for every provider without credentials (a local stack); refused in ' +
      'production',
  }),
  SANDBOX_PROVIDER_URL: Type.String({
    default: 'http://127.0.0.1:3300',
    pattern: '^https?://',
    description: 'base URL of the sandbox provider (SANDBOX_CHECKOUT=on)',
  }),
  SANDBOX_SIGNING_SECRET: Type.Optional(
    Type.String({ description: 'HMAC key (base64, at least 32 bytes) shared with the sandbox provider (SANDBOX_CHECKOUT=on)' }),
  ),
  STATUS_POLL_WORKER: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description:
      "on: this process runs the provider status look-ups (the provider-status queue's worker and its reconciler); off: it only " +
      'schedules them, for replicas that serve customers alone',
  }),
  STATUS_POLL_FIRST_DELAY_MS: Type.Integer({
    default: DEFAULT_STATUS_POLL_SCHEDULE.firstDelayMs,
    minimum: 100,
    maximum: 3_600_000,
    description: "how long after a checkout the provider is first asked for the order's status; each further look-up waits twice as long",
  }),
  STATUS_POLL_MAX_DELAY_MS: Type.Integer({
    default: DEFAULT_STATUS_POLL_SCHEDULE.maxDelayMs,
    minimum: 100,
    maximum: 86_400_000,
    description: 'the longest wait between two status look-ups of one payment',
  }),
  STATUS_POLL_MAX_AGE_MINUTES: Type.Integer({
    default: DEFAULT_STATUS_POLL_SCHEDULE.maxAgeMs / 60_000,
    minimum: 1,
    maximum: 30 * 1440,
    description: 'a payment older than this is no longer looked up at its provider (the chain still sees any USDC)',
  }),
  STATUS_POLL_TIMEOUT_MS: Type.Integer({
    default: 10_000,
    minimum: 500,
    maximum: 60_000,
    description: 'how long one status look-up may take at the provider, retries included',
  }),
  STATUS_POLL_CONCURRENCY: Type.Integer({
    default: 4,
    minimum: 1,
    maximum: 64,
    description: 'status look-ups run at once by this process',
  }),
  PROVIDER_EVENTS_INTERVAL_MS: Type.Integer({
    default: 30_000,
    minimum: 1_000,
    maximum: 3_600_000,
    description:
      "how often a provider's event queue (Simplex's) is read, each event kept in the database and deleted at the provider " +
      '(STATUS_POLL_WORKER=on; one replica at a time)',
  }),
  STATUS_POLL_RECONCILE_INTERVAL_MS: Type.Integer({
    default: 30_000,
    minimum: 100,
    maximum: 3_600_000,
    description: 'how often the reconciler gives overdue status look-ups that lost their job (a flushed Redis) a new one',
  }),
  SMTP_URL: Type.Optional(
    Type.String({
      pattern: '^smtps?://[^\\s]+$',
      description:
        'the SMTP server recovery e-mails go through (issue 32), user and password in the URL: smtps:// connects with TLS, smtp:// ' +
        'upgrades with STARTTLS when the server offers it (add ?requireTLS=true to refuse a server that does not); unset, no ' +
        'e-mail is ever scheduled or sent. A secret: SMTP_URL_FILE reads it from a file, and it is never logged',
    }),
  ),
  MAIL_FROM: Type.Optional(
    Type.String({
      minLength: 3,
      maxLength: 320,
      description:
        'the From of recovery e-mails, an address or "Name <address>" (required with SMTP_URL), e.g. Shop payments <pay@shop.example>',
    }),
  ),
  RECOVERY_EMAIL_DELAY_MINUTES: Type.Integer({
    default: DEFAULT_RECOVERY_DELAY_MINUTES,
    minimum: RECOVERY_DELAY_BOUNDS_MINUTES.min,
    maximum: RECOVERY_DELAY_BOUNDS_MINUTES.max,
    description: 'how long after a decline (or an abandoned checkout) the one recovery e-mail of the order goes out',
  }),
  RECOVERY_EMAIL_ABANDONED_AFTER_MINUTES: Type.Integer({
    default: DEFAULT_RECOVERY_ABANDONED_AFTER_MINUTES,
    minimum: RECOVERY_ABANDONED_AFTER_BOUNDS_MINUTES.min,
    maximum: RECOVERY_ABANDONED_AFTER_BOUNDS_MINUTES.max,
    description:
      'how long after its checkout was handed out a payment the provider has said nothing about counts as abandoned (its e-mail then ' +
      'waits RECOVERY_EMAIL_DELAY_MINUTES more)',
  }),
  RECOVERY_EMAIL_SCAN_INTERVAL_MS: Type.Integer({
    default: 60_000,
    minimum: 100,
    maximum: 3_600_000,
    description:
      'how often declined and abandoned payments are looked for (recovery e-mails scheduled), lost jobs recreated and interrupted sends ' +
      'closed (with SMTP_URL; every replica may run it)',
  }),
  ...rateSourceSettings,
  ...providerEnvironmentSchema(PROVIDER_MODULES),
  ...checkoutSignalSettings(),
});

/**
 * The hosted checkout's live signals (issue 32): the providers' circuit breakers, the measured
 * conversion the ranking reads, and the customer's country from a trusted proxy. Numbers are read
 * as text here and checked by packages/domain's parse functions (checkoutSignalsOf), so the rules
 * and their ranges live once.
 */
function checkoutSignalSettings() {
  const circuit = (key: keyof typeof CIRCUIT_SETTINGS, description: string) => {
    const setting = CIRCUIT_SETTINGS[key];
    return {
      [setting.name]: Type.Optional(
        Type.String({ description: `${description}; unset: ${setting.default} (${setting.least} to ${setting.most} ${setting.unit})` }),
      ),
    };
  };
  return {
    ...circuit('windowSeconds', "how far back a provider's checkout calls count for its circuit breaker"),
    ...circuit('minCalls', "the fewest checkout calls in the window before a provider's circuit may open"),
    ...circuit(
      'failurePercent',
      "the share of a provider's checkout calls in the window that failed (errors, timeouts) that opens its circuit",
    ),
    ...circuit('coolOffSeconds', 'how long an opened circuit keeps its provider off the page before one trial checkout'),
    [CHECKOUT_RANKING_MIN_ATTEMPTS_SETTING]: Type.Optional(
      Type.String({
        description: `recent attempts a provider needs here before its measured conversion and time to USDC rank it; unset: ${DEFAULT_CHECKOUT_RANKING_MIN_ATTEMPTS} (10 to 1000000)`,
      }),
    ),
    [CHECKOUT_RANKING_WINDOW_DAYS_SETTING]: Type.Optional(
      Type.String({
        description: `how many days back the attempts the ranking measures go; unset: ${DEFAULT_CHECKOUT_RANKING_WINDOW_DAYS} (1 to 365)`,
      }),
    ),
    CUSTOMER_COUNTRY_HEADER: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9-]{1,64}$',
        description:
          "the request header a trusted proxy in front of this host sets to the customer's ISO 3166-1 alpha-2 country (CF-IPCountry " +
          'behind Cloudflare); unset, no country is known. It orders the providers (never hides one) and is what a quote priced per ' +
          'country (Coinbase) is asked for; Accept-Language is never read for it',
      }),
    ),
    CUSTOMER_SUBDIVISION_HEADER: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9-]{1,64}$',
        description:
          "the request header the same proxy sets to the customer's ISO 3166-2 subdivision, alone (TX) or whole (US-TX): " +
          "cf-region-code behind Cloudflare. Needs CUSTOMER_COUNTRY_HEADER; unset, none is known and Coinbase's rows for US " +
          'customers (its quote asks their state) show the estimate',
      }),
    ),
  };
}

export type PaymentRedirectSettings = Static<typeof paymentRedirectSettings>;

export interface PaymentRedirectConfig {
  raw: PaymentRedirectSettings;
  production: boolean;
  /** {payment_url} without a trailing slash. */
  publicUrl: string;
  keys: SealingKeyRing;
  /** Where exchange rates come from (provider minimums, the hosted checkout). */
  rates: RateSourceConfig;
  /** Set when SANDBOX_CHECKOUT=on. */
  sandbox: { baseUrl: string; signingSecret: Buffer } | undefined;
  /** Block explorer link template, or null when the chain has no explorer. */
  explorerTxUrl: string | null;
  /** Recovery e-mails: set when SMTP_URL is (with MAIL_FROM). */
  recoveryMail: RecoveryMailConfig | undefined;
  checkoutSignals: CheckoutSignalsConfig;
}

export interface RecoveryMailConfig {
  smtpUrl: string;
  from: string;
  timing: RecoveryTiming;
  scanIntervalMs: number;
}

/** The settings of the hosted checkout's live signals, read with packages/domain's rules. */
export interface CheckoutSignalsConfig {
  circuit: CircuitSettings;
  rankingMinAttempts: number;
  rankingWindowDays: number;
  /** The trusted proxy's country header, lower case (as Node hands headers); undefined: no country is known. */
  countryHeader: string | undefined;
  /** Its subdivision header, lower case; undefined: no subdivision is known. */
  subdivisionHeader: string | undefined;
}

/**
 * The settings, checked together: every problem is reported at once. Production refuses the
 * sandbox, a PUBLIC_URL that is not https or not public, a chain other than Polygon's, and the
 * bundled sample rates (by content); a secret
 * that decodes to fewer than 32 bytes is refused everywhere. Provider credentials are checked
 * when the registry is built (buildPaymentRedirectApp), before anything listens: there production
 * refuses a provider's test mode unless ALLOW_PROVIDER_TEST_MODE=true, and short webhook keys.
 */
export function loadPaymentRedirectConfig(env: NodeJS.ProcessEnv = process.env): PaymentRedirectConfig {
  const raw = loadConfig(paymentRedirectSettings, env);
  const production = raw.NODE_ENV === 'production';
  const problems: string[] = [];
  const attempt = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
      return undefined;
    }
  };
  const publicUrl = attempt(() => checkPublicUrl(raw.PUBLIC_URL, production));
  checkChainNetwork(raw, production, problems);
  checkRedisUrl(raw, production, problems);
  const keys = attempt(() => parseSealingKeys(raw.ADDRESS_IN_KEYS));
  const rates = attempt(() => parseRateSourceSettings(raw, { sampleFile: SAMPLE_RATE_FILE }));
  let sandbox: PaymentRedirectConfig['sandbox'];
  if (raw.SANDBOX_CHECKOUT === 'on') {
    if (production)
      problems.push('SANDBOX_CHECKOUT: on is refused in production (a simulated checkout must never be linked from a real gateway)');
    if (raw.SANDBOX_SIGNING_SECRET === undefined) problems.push('SANDBOX_SIGNING_SECRET: required with SANDBOX_CHECKOUT=on');
    else {
      const signingSecret = attempt(() => parseSecretBytes(raw.SANDBOX_SIGNING_SECRET!, 'SANDBOX_SIGNING_SECRET'));
      if (signingSecret) sandbox = { baseUrl: raw.SANDBOX_PROVIDER_URL.replace(/\/+$/, ''), signingSecret };
    }
  }
  if (raw.STATUS_POLL_FIRST_DELAY_MS > raw.STATUS_POLL_MAX_DELAY_MS) {
    problems.push('STATUS_POLL_FIRST_DELAY_MS: longer than STATUS_POLL_MAX_DELAY_MS; the first wait cannot exceed the longest');
  }
  const recoveryMail = attempt(() => parseRecoveryMail(raw, production));
  const checkoutSignals = checkoutSignalsOf(raw, problems);
  if (problems.length > 0 || !publicUrl || !keys || !rates || !checkoutSignals) throw new ConfigError(problems);
  return {
    raw,
    production,
    publicUrl,
    keys,
    rates,
    sandbox,
    explorerTxUrl: raw.EXPLORER_TX_URL === 'none' ? null : raw.EXPLORER_TX_URL,
    recoveryMail,
    checkoutSignals,
  };
}

/**
 * SMTP_URL, MAIL_FROM and the recovery timing, checked together; undefined without SMTP_URL (no
 * e-mail is sent). Production refuses an SMTP_URL that could send the password in clear.
 */
function parseRecoveryMail(raw: PaymentRedirectSettings, production: boolean): RecoveryMailConfig | undefined {
  const timing = recoveryTiming(raw.RECOVERY_EMAIL_DELAY_MINUTES, raw.RECOVERY_EMAIL_ABANDONED_AFTER_MINUTES);
  if (raw.SMTP_URL === undefined) return undefined;
  const problems: string[] = [];
  // Never the value: it holds the SMTP password.
  const refusal = smtpUrlRefusal(raw.SMTP_URL, production);
  if (refusal !== undefined) problems.push(`SMTP_URL: ${refusal}`);
  const from = raw.MAIL_FROM?.trim();
  if (from === undefined || from === '') problems.push('MAIL_FROM: required with SMTP_URL (the From of recovery e-mails)');
  else if (!/^[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+$|^[^<>]*<[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+>$/.test(from)) {
    problems.push('MAIL_FROM: write an address (pay@shop.example) or a name and an address (Shop payments <pay@shop.example>)');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { smtpUrl: raw.SMTP_URL, from: from!, timing, scanIntervalMs: raw.RECOVERY_EMAIL_SCAN_INTERVAL_MS };
}

/** The checkout signals' settings, each refusal (from packages/domain, naming its variable) added to `problems`. */
function checkoutSignalsOf(raw: PaymentRedirectSettings, problems: string[]): CheckoutSignalsConfig | undefined {
  // These settings are text in the schema (checkoutSignalSettings), parsed here.
  const env = raw as unknown as Partial<Record<string, string>>;
  const read = <T>(parse: () => T): T | undefined => {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      problems.push(`${error.param}: ${error.message}`);
      return undefined;
    }
  };
  const circuit = read(() => parseCircuitSettings(env));
  const minAttempts = env[CHECKOUT_RANKING_MIN_ATTEMPTS_SETTING];
  const rankingMinAttempts = read(() =>
    minAttempts === undefined ? DEFAULT_CHECKOUT_RANKING_MIN_ATTEMPTS : parseRankingMinAttempts(minAttempts),
  );
  const windowDays = env[CHECKOUT_RANKING_WINDOW_DAYS_SETTING];
  const rankingWindowDays = read(() =>
    windowDays === undefined ? DEFAULT_CHECKOUT_RANKING_WINDOW_DAYS : parseRankingWindowDays(windowDays),
  );
  const countryHeader = raw.CUSTOMER_COUNTRY_HEADER?.toLowerCase();
  if (countryHeader === 'accept-language') {
    problems.push(
      "CUSTOMER_COUNTRY_HEADER: Accept-Language names the customer's languages, not their country; name the header your proxy sets",
    );
  }
  const subdivisionHeader = raw.CUSTOMER_SUBDIVISION_HEADER?.toLowerCase();
  if (subdivisionHeader !== undefined && countryHeader === undefined) {
    problems.push('CUSTOMER_SUBDIVISION_HEADER: a subdivision says nothing without its country; set CUSTOMER_COUNTRY_HEADER too');
  }
  if (subdivisionHeader === 'accept-language') {
    problems.push(
      "CUSTOMER_SUBDIVISION_HEADER: Accept-Language names the customer's languages, not where they are; name the header your proxy sets",
    );
  }
  if (!circuit || rankingMinAttempts === undefined || rankingWindowDays === undefined) return undefined;
  return { circuit, rankingMinAttempts, rankingWindowDays, countryHeader, subdivisionHeader };
}

/** When payments' providers are asked about them (STATUS_POLL_*): the first wait, the longest, and until what age. */
export function statusPollSchedule(raw: PaymentRedirectSettings): StatusPollSchedule {
  return {
    firstDelayMs: raw.STATUS_POLL_FIRST_DELAY_MS,
    maxDelayMs: raw.STATUS_POLL_MAX_DELAY_MS,
    maxAgeMs: raw.STATUS_POLL_MAX_AGE_MINUTES * 60_000,
  };
}
