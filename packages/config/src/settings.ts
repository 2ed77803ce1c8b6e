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
  DATABASE_SCHEMA: Type.String({ default: 'public', pattern: '^[a-z_][a-z0-9_]{0,62}$', description: 'PostgreSQL schema holding the tables' }),
  DATABASE_POOL_SIZE: Type.Integer({ default: 10, minimum: 1, maximum: 200, description: 'connections per process' }),
};

export const serverSettings = (defaultPort: number) => ({
  HOST: Type.String({ default: '0.0.0.0', description: 'interface to listen on' }),
  PORT: Type.Integer({ default: defaultPort, minimum: 0, maximum: 65535, description: 'TCP port to listen on' }),
  TRUST_PROXY: Type.String({
    default: 'false',
    pattern: '^(false|\\d{1,2}|[0-9a-fA-F.:/]+(,[0-9a-fA-F.:/]+)*)$',
    description:
      'which X-Forwarded-For entries to believe: false (none), a number of proxy hops in front of the app (e.g. 1 behind one load balancer), or the proxies\' addresses/CIDR ranges, comma-separated; never the whole header',
  }),
  RATE_LIMIT_MAX: Type.Integer({ default: 600, minimum: 1, description: 'requests per client IP per window' }),
  RATE_LIMIT_WINDOW_MS: Type.Integer({ default: 60_000, minimum: 1000, description: 'rate limit window in milliseconds' }),
});

export const addressInKeySettings = {
  ADDRESS_IN_KEYS: Type.String({
    pattern: '^[A-Za-z0-9_-]{1,16}:[A-Za-z0-9+/=_-]{43,44}(,[A-Za-z0-9_-]{1,16}:[A-Za-z0-9+/=_-]{43,44})*$',
    description: 'address_in sealing keys as id:base64(32 bytes), comma-separated, newest first',
  }),
};

export const chainIdentitySettings = {
  CHAIN_ID: Type.Integer({ default: 137, minimum: 1, description: 'EVM chain id (137 = Polygon PoS)' }),
  USDC_TOKEN_ADDRESS: Type.String({
    default: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    pattern: '^0x[0-9a-fA-F]{40}$',
    description: 'USDC contract (default: native USDC on Polygon PoS)',
  }),
};

export const hdPublicKeySettings = {
  HD_XPUB: Type.String({
    pattern: '^xpub[1-9A-HJ-NP-Za-km-z]{100,112}$',
    description: "extended public key of m/44'/60'/0'/0; temporary wallets are its children",
  }),
};

export const redisSettings = {
  REDIS_URL: Type.String({ default: 'redis://127.0.0.1:6379', pattern: '^rediss?://', description: 'Redis for BullMQ (work in flight only)' }),
  REDIS_PREFIX: Type.String({ default: 'gw', pattern: '^[A-Za-z0-9:_-]{1,64}$', description: 'BullMQ key prefix' }),
};

export const chainRpcSettings = {
  CHAIN_RPC_URL: Type.String({ pattern: '^(https?|wss?)://', description: 'JSON-RPC endpoint of the chain (Polygon PoS in production)' }),
  CONFIRMATIONS: Type.Integer({ default: 64, minimum: 0, description: 'blocks on top of a deposit before it is final (unless the finalized tag says so first)' }),
};

export const fxRateSettings = {
  FX_RATES_PER_USD: Type.String({
    default: 'EUR=0.92,GBP=0.79,CAD=1.37,AUD=1.52,NZD=1.66,CHF=0.88,SEK=10.5,NOK=10.7,DKK=6.86,PLN=3.95,CZK=23.1,INR=83.1,BRL=5.0,MXN=17.1,SGD=1.34,HKD=7.82,ZAR=18.6,TRY=32.5,AED=3.6725',
    description: 'units of each currency per 1 USD (provider minimums, the sandbox\'s conversion to USDC); a live rate source comes later',
  }),
};
