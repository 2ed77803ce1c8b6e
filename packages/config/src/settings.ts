import { Type } from '@sinclair/typebox';

/** Fragments of the environment schema, composed by each app into its own schema. */

export const runtimeSettings = {
  NODE_ENV: Type.Union([Type.Literal('production'), Type.Literal('development'), Type.Literal('test')], {
    default: 'production',
    description: 'production, development or test; production applies the strict rules',
  }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info', description: 'pino log level' },
  ),
};

export const databaseSettings = {
  DATABASE_URL: Type.String({ minLength: 1, description: 'PostgreSQL connection string, e.g. postgres://postgres@127.0.0.1:5432/gateway' }),
  DATABASE_SCHEMA: Type.String({
    default: 'public',
    pattern: '^[a-z_][a-z0-9_]{0,62}$',
    description: 'PostgreSQL schema holding the tables',
  }),
  DATABASE_POOL_SIZE: Type.Integer({ default: 10, minimum: 1, maximum: 200, description: 'connections per process' }),
  DATABASE_STATEMENT_TIMEOUT_MS: Type.Integer({
    default: 15_000,
    minimum: 0,
    maximum: 3_600_000,
    description:
      'PostgreSQL cancels a statement (or lock wait) running longer than this, in milliseconds (the API apps answer 503 with ' +
      'Retry-After); 0 for none; migrations wait without it',
  }),
  DATABASE_KEEPALIVE_DELAY_MS: Type.Integer({
    default: 10_000,
    minimum: 1000,
    maximum: 3_600_000,
    description:
      'TCP keep-alive on every PostgreSQL connection: probes start after this many milliseconds idle, so a silently dropped ' +
      'connection is noticed',
  }),
  DATABASE_ROLE_PREFIX: Type.String({
    default: 'gateway',
    pattern: '^[a-z_][a-z0-9_]{0,40}$',
    description:
      "the apps' PostgreSQL roles are <prefix>_wallet_control, <prefix>_settlement_worker …, created by the migrations; each app " +
      'takes its own at connect (its login user must be a member); one prefix per gateway sharing a cluster',
  }),
};

/**
 * The pool options of the databaseSettings (for createPool of @gateway/db), plus the app's name.
 * The app whose role the pool takes is createPool's `app`, named by the caller.
 */
export function databasePoolOptions(
  raw: {
    DATABASE_URL: string;
    DATABASE_SCHEMA: string;
    DATABASE_POOL_SIZE: number;
    DATABASE_STATEMENT_TIMEOUT_MS: number;
    DATABASE_KEEPALIVE_DELAY_MS: number;
    DATABASE_ROLE_PREFIX: string;
  },
  applicationName: string,
): {
  connectionString: string;
  schema: string;
  max: number;
  applicationName: string;
  statementTimeoutMs: number;
  keepAliveInitialDelayMs: number;
  rolePrefix: string;
} {
  return {
    connectionString: raw.DATABASE_URL,
    schema: raw.DATABASE_SCHEMA,
    max: raw.DATABASE_POOL_SIZE,
    applicationName,
    statementTimeoutMs: raw.DATABASE_STATEMENT_TIMEOUT_MS,
    keepAliveInitialDelayMs: raw.DATABASE_KEEPALIVE_DELAY_MS,
    rolePrefix: raw.DATABASE_ROLE_PREFIX,
  };
}

export const serverSettings = (defaultPort: number) => ({
  HOST: Type.String({ default: '0.0.0.0', description: 'interface to listen on' }),
  PORT: Type.Integer({ default: defaultPort, minimum: 0, maximum: 65535, description: 'TCP port to listen on' }),
  TRUST_PROXY: Type.String({
    default: 'false',
    pattern: '^(false|\\d{1,2}|[0-9a-fA-F.:/]+(,[0-9a-fA-F.:/]+)*)$',
    description:
      'which X-Forwarded-For entries to believe: false (none), a number of proxy hops in front of the app (e.g. 1 behind one load ' +
      "balancer), or the proxies' addresses/CIDR ranges, comma-separated; never the whole header",
  }),
  RATE_LIMIT_MAX: Type.Integer({ default: 600, minimum: 1, description: 'requests per client IP per window' }),
  RATE_LIMIT_WINDOW_MS: Type.Integer({ default: 60_000, minimum: 1000, description: 'rate limit window in milliseconds' }),
});

/**
 * Where an API app serves `/metrics` (and `/healthz`, `/readyz` again): a port of its own, kept
 * off the public one. The workers have the same two settings for their only server.
 */
export const metricsServerSettings = (defaultPort: number) => ({
  METRICS_HOST: Type.String({
    default: '0.0.0.0',
    description: 'interface for /metrics, /healthz and /readyz (expose it to the monitoring network only)',
  }),
  METRICS_PORT: Type.Integer({
    default: defaultPort,
    minimum: 0,
    maximum: 65535,
    description:
      'port for /metrics, /healthz and /readyz, apart from PORT (which keeps /healthz and /readyz for load balancers, never /metrics)',
  }),
});

export const addressInKeySettings = {
  ADDRESS_IN_KEYS: Type.String({
    pattern: '^[A-Za-z0-9_-]{1,16}:[A-Za-z0-9+/=_-]{43,44}(,[A-Za-z0-9_-]{1,16}:[A-Za-z0-9+/=_-]{43,44})*$',
    description: 'address_in sealing keys as id:base64(32 bytes), comma-separated, newest first',
  }),
};

export const chainIdentitySettings = {
  CHAIN_ID: Type.Integer({
    default: 137,
    minimum: 1,
    description:
      'EVM chain id (137 = Polygon PoS); production refuses any other unless CHAIN_NETWORK=testnet (then 80002, Polygon Amoy, only)',
  }),
  CHAIN_NETWORK: Type.Union([Type.Literal('mainnet'), Type.Literal('testnet')], {
    default: 'mainnet',
    description:
      "mainnet, or testnet for a production deployment on Polygon Amoy (CHAIN_ID=80002) that takes no real money; the operator's " +
      'explicit word, checked at boot',
  }),
  USDC_TOKEN_ADDRESS: Type.String({
    default: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    pattern: '^0x[0-9a-fA-F]{40}$',
    description: 'USDC contract (default: native USDC on Polygon PoS)',
  }),
};

/** The Polygon USDC the gateway does not settle (USDC.e beside native USDC): followed, recorded, shown, held. */
export const otherUsdcSettings = {
  OTHER_USDC_TOKEN_ADDRESS: Type.Optional(
    Type.String({
      pattern: '^(0x[0-9a-fA-F]{40}|none)$',
      description:
        'the other USDC contract, whose deposits are recorded and held, never settled (default on Polygon PoS: the Polygon USDC that ' +
        "USDC_TOKEN_ADDRESS is not, i.e. USDC.e; elsewhere none); 'none' follows only USDC_TOKEN_ADDRESS",
    }),
  ),
  OTHER_USDC_DEPOSITS: Type.Union([Type.Literal('hold'), Type.Literal('forward')], {
    default: 'hold',
    description:
      'hold: a final deposit of the other USDC is held for the operator (counted, alerted on, shown to the customer and the merchant); ' +
      'forward is refused at boot (see docs/settlement.md)',
  }),
};

export const hdPublicKeySettings = {
  HD_XPUB: Type.String({
    pattern: '^xpub[1-9A-HJ-NP-Za-km-z]{100,112}$',
    description: "extended public key of m/44'/60'/0'/0; temporary wallets are its children",
  }),
};

export const redisSettings = {
  REDIS_URL: Type.String({
    default: 'redis://127.0.0.1:6379',
    pattern: '^rediss?://',
    description: 'Redis for BullMQ (work in flight only); rediss:// connects with TLS',
  }),
  REDIS_PREFIX: Type.String({ default: 'gw', pattern: '^[A-Za-z0-9:_-]{1,64}$', description: 'BullMQ key prefix' }),
};

export const chainRpcSettings = {
  CHAIN_RPC_URL: Type.String({ pattern: '^(https?|wss?)://', description: 'JSON-RPC endpoint of the chain (Polygon PoS in production)' }),
  CONFIRMATIONS: Type.Integer({
    default: 64,
    minimum: 0,
    description:
      'blocks on top of a deposit or payout before it is final, only on a node that does not serve the finalized block tag (where it ' +
      'does, the finalized block decides)',
  }),
};

/** Where the API apps get exchange rates (Convert to USD, provider minimums, the hosted checkout). */
export const rateSourceSettings = {
  RATE_SOURCE: Type.Optional(
    Type.Union([Type.Literal('ecb'), Type.Literal('open-er-api'), Type.Literal('file')], {
      description:
        "ecb (the European Central Bank's daily reference rates), open-er-api (ExchangeRate-API's free USD-based open endpoint) or " +
        'file (RATE_FILE); default ecb in production, file elsewhere',
    }),
  ),
  RATE_SOURCE_URL: Type.Optional(
    Type.String({ pattern: '^https?://[^\\s]+$', description: "the source's URL, overriding the built-in one (ecb and open-er-api)" }),
  ),
  RATE_FILE: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'JSON rate table for RATE_SOURCE=file (see packages/rates/data/local-rates.json); required for file in production',
    }),
  ),
  RATE_REFRESH_SECONDS: Type.Integer({
    default: 3600,
    minimum: 5,
    maximum: 86_400,
    description: 'how often the rates are refreshed in the background (one replica fetches, the others read the Redis cache)',
  }),
  RATE_MAX_AGE_SECONDS: Type.Optional(
    Type.Integer({
      minimum: 60,
      description:
        'rates older than this (from the date the source gives them) are refused with a 503, never used; default 432000 (5 days) for ' +
        'ecb and file, 172800 (2 days) for open-er-api',
    }),
  ),
  RATE_FETCH_TIMEOUT_SECONDS: Type.Integer({
    default: 10,
    minimum: 1,
    maximum: 120,
    description: 'time limit of one fetch from the rate source',
  }),
};
