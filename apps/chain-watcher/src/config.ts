import { Type, type Static } from '@sinclair/typebox';
import {
  chainIdentitySettings,
  chainRpcSettings,
  checkChainNetwork,
  checkRedisUrl,
  ConfigError,
  databaseSettings,
  loadConfig,
  otherUsdcSettings,
  redisSettings,
  resolveOtherUsdc,
  runtimeSettings,
} from '@gateway/config';
import { DEFAULT_MAX_BLOCK_RANGE } from '@gateway/chain';

export const chainWatcherSettings = Type.Object({
  ...runtimeSettings,
  ...databaseSettings,
  ...redisSettings,
  ...chainRpcSettings,
  ...chainIdentitySettings,
  ...otherUsdcSettings,
  START_BLOCK: Type.Optional(
    Type.Integer({ minimum: 0, description: 'first block to scan when no cursor is stored yet (default: blocks after the current head)' }),
  ),
  MAX_BLOCK_RANGE: Type.Integer({
    default: DEFAULT_MAX_BLOCK_RANGE,
    minimum: 1,
    maximum: 100_000,
    description: 'most blocks per eth_getLogs call',
  }),
  POLL_INTERVAL_MS: Type.Integer({ default: 2000, minimum: 50, description: 'pause between rounds once caught up with the head' }),
  RPC_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 100, description: 'time limit of one JSON-RPC call' }),
  RPC_BACKOFF_MAX_MS: Type.Integer({
    default: 30_000,
    minimum: 100,
    description: 'longest pause between retries after RPC or database errors',
  }),
  LEADER_RETRY_MS: Type.Integer({ default: 5000, minimum: 50, description: 'how often a standby tries to take the lead' }),
  METRICS_HOST: Type.String({ default: '0.0.0.0', description: 'interface for /healthz, /readyz and /metrics' }),
  METRICS_PORT: Type.Integer({ default: 3101, minimum: 0, maximum: 65535, description: 'port for /healthz, /readyz and /metrics' }),
});

export type ChainWatcherSettings = Static<typeof chainWatcherSettings>;

export interface ChainWatcherConfig {
  raw: ChainWatcherSettings;
  /** Lower-case, the form logs and cursors are compared in. */
  tokenAddress: `0x${string}`;
  /** The other USDC followed beside it (lower-case), or undefined. */
  otherTokenAddress: `0x${string}` | undefined;
  /** The block the first cursor points at: scanning starts right after it. */
  startBlock: bigint | undefined;
}

export function loadChainWatcherConfig(env: NodeJS.ProcessEnv = process.env): ChainWatcherConfig {
  const raw = loadConfig(chainWatcherSettings, env);
  const problems: string[] = [];
  checkChainNetwork(raw, raw.NODE_ENV === 'production', problems);
  checkRedisUrl(raw, raw.NODE_ENV === 'production', problems);
  const other = resolveOtherUsdc(raw, raw.NODE_ENV === 'production', problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    raw,
    tokenAddress: raw.USDC_TOKEN_ADDRESS.toLowerCase() as `0x${string}`,
    otherTokenAddress: other.token,
    // Genesis holds no token transfers, so START_BLOCK=0 starts at block 1 like START_BLOCK=1.
    startBlock: raw.START_BLOCK === undefined ? undefined : BigInt(Math.max(raw.START_BLOCK - 1, 0)),
  };
}
