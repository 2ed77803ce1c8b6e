import { validateMnemonic } from '@scure/bip39';
import { wordlist as englishWordlist } from '@scure/bip39/wordlists/english';
import { Type, type Static } from '@sinclair/typebox';
import { getAddress, isAddressEqual, parseGwei, type Address, type Hex } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
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
  type OtherUsdc,
  runtimeSettings,
} from '@gateway/config';
import { DEFAULT_MAX_BLOCK_RANGE, PUBLIC_TEST_MNEMONIC } from '@gateway/chain';
import { ASSUMED_NATIVE_PRICE_USDC, DEFAULT_DUST_THRESHOLD, formatUsdc, parseUsdc } from '@gateway/domain';
import type { RedisSettings } from '@gateway/queue';
import { CRASH_POINTS, type CrashPoint } from './crash-points';
import type { SettlementChainClientOptions } from './chain/settlement-chain-client';

const ADDRESS = '^0x[0-9a-fA-F]{40}$';

export const settlementSettings = Type.Object({
  ...runtimeSettings,
  ...databaseSettings,
  ...redisSettings,
  ...chainRpcSettings,
  ...chainIdentitySettings,
  ...otherUsdcSettings,
  METRICS_HOST: Type.String({ default: '0.0.0.0', description: 'interface for /healthz, /readyz and /metrics' }),
  METRICS_PORT: Type.Integer({ default: 3102, minimum: 0, maximum: 65535, description: 'port for /healthz, /readyz and /metrics' }),
  SETTLEMENT_MNEMONIC: Type.String({
    pattern: '^[a-z]+( [a-z]+){11,23}$',
    description: "BIP-39 seed of the temporary wallets (m/44'/60'/0'/0/i); only this app holds it",
  }),
  RELAYER_PRIVATE_KEY: Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'key of the gas wallet that relays every payout' }),
  PLATFORM_FEE_ADDRESS: Type.String({
    pattern: ADDRESS,
    description: 'receives the platform fee leg (its share is what each wallet recorded at creation)',
  }),
  DUST_THRESHOLD: Type.String({
    // The costliest payout's measured gas at a stated gas and POL price (dust-policy in @gateway/domain).
    default: DEFAULT_DUST_THRESHOLD.toString(),
    pattern: '^[0-9]{1,30}$',
    description:
      "USDC base units; a deposit below it is held and paid out with its wallet's next payout, never forwarded alone at a loss " +
      '(30000 = 0.03 USDC)',
  }),
  PAYOUT_BELOW_GAS_COST: Type.Union([Type.Literal('hold'), Type.Literal('pay')], {
    default: 'hold',
    description:
      "hold: a payout whose platform fee is worth less than its gas (at today's gas price, NATIVE_PRICE_USDC per POL) is held like " +
      "dust until its wallet's sum earns its gas; pay: the operator pays such payouts (e.g. a gateway charging no fee)",
  }),
  NATIVE_PRICE_USDC: Type.String({
    default: formatUsdc(ASSUMED_NATIVE_PRICE_USDC),
    pattern: '^[0-9]{1,12}(\\.[0-9]{1,6})?$',
    description: 'USDC per POL (the native coin) that payouts are weighed at against their fee; set it at or above the market price',
  }),
  WORKER_CONCURRENCY: Type.Integer({
    default: 4,
    minimum: 1,
    maximum: 64,
    description: 'settlement job runs in parallel per process (a payout waiting for confirmations holds no slot between runs)',
  }),
  STUCK_TX_TIMEOUT_MS: Type.Integer({
    default: 120_000,
    minimum: 100,
    description: 'a payout transaction pending this long is replaced (same nonce, higher fee)',
  }),
  FEE_BUMP_PERCENT: Type.Integer({
    default: 25,
    minimum: 10,
    maximum: 500,
    description: 'fee increase of a replacement transaction (nodes require at least 10%)',
  }),
  MAX_FEE_PER_GAS_GWEI: Type.String({
    default: '1000',
    pattern: '^[0-9]{1,9}(\\.[0-9]{1,9})?$',
    description: 'no payout transaction is signed with a higher maxFeePerGas (gwei); a stuck one at this ceiling is left as it is',
  }),
  MAX_BLOCK_RANGE: Type.Integer({
    default: DEFAULT_MAX_BLOCK_RANGE,
    minimum: 1,
    maximum: 100_000,
    description: 'most blocks per eth_getLogs call (looking for a payout someone else relayed); halved while the node refuses',
  }),
  AUTHORIZATION_VALIDITY_SECONDS: Type.Integer({
    default: 3600,
    minimum: 120,
    description: 'validBefore of each EIP-3009 authorization; renewed (same nonce) when it runs out unpaid',
  }),
  POLL_INTERVAL_MS: Type.Integer({
    default: 2000,
    minimum: 10,
    description: 'a deposit whose payout is in flight has its job run again (one round over its legs) after this long',
  }),
  RECONCILE_INTERVAL_MS: Type.Integer({
    default: 60_000,
    minimum: 100,
    description: 'how often deposits in final/forwarding without a live job are re-enqueued',
  }),
  JOB_LOCK_MS: Type.Integer({
    default: 30_000,
    minimum: 500,
    description: 'BullMQ job lock; a worker that died gives its jobs up after about this long',
  }),
  SETTLEMENT_CRASH_AT: Type.Optional(
    Type.Union(
      CRASH_POINTS.map((point) => Type.Literal(point)),
      { description: 'tests only: the process kills itself (SIGKILL) at this point of its first payout' },
    ),
  ),
});

export type SettlementSettings = Static<typeof settlementSettings>;

export interface SettlementConfig {
  raw: SettlementSettings;
  redis: RedisSettings;
  tokenAddress: Address;
  platformFeeAddress: Address;
  /** The other USDC and what happens to its deposits (held for the operator). */
  otherUsdc: OtherUsdc;
  dustThreshold: bigint;
  /** NATIVE_PRICE_USDC in USDC base units per native coin. */
  nativePriceUsdc: bigint;
  /** MAX_FEE_PER_GAS_GWEI in wei. */
  maxFeePerGas: bigint;
  relayerKey: Hex;
  mnemonic: string;
  crashAt?: CrashPoint;
}

// The accounts every local chain funds from the public mnemonic; their keys are public knowledge.
const PUBLIC_TEST_ACCOUNTS = 10;

function isPublicTestKey(privateKey: Hex): boolean {
  const address = privateKeyToAccount(privateKey).address;
  return Array.from({ length: PUBLIC_TEST_ACCOUNTS }, (_, i) => mnemonicToAccount(PUBLIC_TEST_MNEMONIC, { addressIndex: i }).address).some(
    (known) => isAddressEqual(known, address),
  );
}

function productionProblems(raw: SettlementSettings, relayerKey: Hex): string[] {
  const problems: string[] = [];
  if (raw.SETTLEMENT_MNEMONIC === PUBLIC_TEST_MNEMONIC) {
    problems.push('SETTLEMENT_MNEMONIC: is the public test mnemonic; anyone could take the deposits. Generate a real seed');
  }
  if (isPublicTestKey(relayerKey)) problems.push('RELAYER_PRIVATE_KEY: is a public test account key; use a key of your own');
  if (raw.SETTLEMENT_CRASH_AT !== undefined) problems.push('SETTLEMENT_CRASH_AT: is a test hook and must not be set in production');
  return problems;
}

/** Reads and checks the settlement worker's settings. Secrets are never part of an error message. */
export function loadSettlementConfig(env: NodeJS.ProcessEnv = process.env): SettlementConfig {
  const raw = loadConfig(settlementSettings, env);
  const relayerKey = raw.RELAYER_PRIVATE_KEY as Hex;
  const problems: string[] = [];
  if (!validateMnemonic(raw.SETTLEMENT_MNEMONIC, englishWordlist)) {
    problems.push('SETTLEMENT_MNEMONIC: is not a valid BIP-39 English mnemonic (word or checksum wrong)');
  }
  if (raw.DATABASE_POOL_SIZE <= raw.WORKER_CONCURRENCY) {
    // Each run in progress holds one connection for its deposit lock and needs another for queries.
    problems.push(`DATABASE_POOL_SIZE: must be larger than WORKER_CONCURRENCY (${raw.WORKER_CONCURRENCY})`);
  }
  if (!/^https?:\/\//.test(raw.CHAIN_RPC_URL)) {
    problems.push('CHAIN_RPC_URL: settlement needs an http(s) JSON-RPC endpoint (it only sends requests, it subscribes to nothing)');
  }
  const maxFeePerGas = parseGwei(raw.MAX_FEE_PER_GAS_GWEI);
  const nativePriceUsdc = parseUsdc(raw.NATIVE_PRICE_USDC);
  if (nativePriceUsdc === 0n)
    problems.push('NATIVE_PRICE_USDC: must be above 0, or every payout would look free (PAYOUT_BELOW_GAS_COST=pay pays them anyway)');
  if (maxFeePerGas === 0n) problems.push('MAX_FEE_PER_GAS_GWEI: must be above 0, or no payout could ever be sent');
  const tokenAddress = getAddress(raw.USDC_TOKEN_ADDRESS);
  const platformFeeAddress = getAddress(raw.PLATFORM_FEE_ADDRESS);
  if (isAddressEqual(platformFeeAddress, tokenAddress) || /^0x0{40}$/.test(raw.PLATFORM_FEE_ADDRESS)) {
    problems.push('PLATFORM_FEE_ADDRESS: must be a wallet, not the zero address or the token contract');
  }
  checkChainNetwork(raw, raw.NODE_ENV === 'production', problems);
  checkRedisUrl(raw, raw.NODE_ENV === 'production', problems);
  const otherUsdc = resolveOtherUsdc(raw, raw.NODE_ENV === 'production', problems);
  if (raw.NODE_ENV === 'production') problems.push(...productionProblems(raw, relayerKey));
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    raw,
    redis: { url: raw.REDIS_URL, prefix: raw.REDIS_PREFIX },
    tokenAddress,
    platformFeeAddress,
    otherUsdc,
    dustThreshold: BigInt(raw.DUST_THRESHOLD),
    nativePriceUsdc,
    maxFeePerGas,
    relayerKey,
    mnemonic: raw.SETTLEMENT_MNEMONIC,
    crashAt: raw.SETTLEMENT_CRASH_AT,
  };
}

/** How the worker and its commands reach the chain: the same node, token and log range for all. */
export function settlementChainOptions({ raw, tokenAddress }: SettlementConfig): SettlementChainClientOptions {
  return {
    rpcUrl: raw.CHAIN_RPC_URL,
    chainId: raw.CHAIN_ID,
    token: tokenAddress,
    pollingIntervalMs: raw.POLL_INTERVAL_MS,
    maxBlockRange: raw.MAX_BLOCK_RANGE,
  };
}
