import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { Queue } from 'bullmq';
import { QUEUE_NAMES, type SettlementJob } from '@gateway/queue';
import { RpcProxy, waitFor } from '@gateway/testkit';
import { createTestDatabase, type TestDatabase } from '@gateway/app-testkit';
import { startLocalChain, type LocalChain } from './local-chain';
import { buildChainWatcherApp } from '../../src/app';
import { loadChainWatcherConfig } from '../../src/config';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const CONFIRMATIONS = 3;

export interface WatcherTarget {
  db: TestDatabase;
  rpcUrl: string;
  token: string;
  redisPrefix: string;
}

/** A chain-watcher app wired like production but tuned for tests (fast polls, short timeouts), started. */
export async function startWatcher(target: WatcherTarget, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const config = loadChainWatcherConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.WATCHER_TEST_LOG ?? 'silent',
    DATABASE_URL: target.db.connectionString,
    DATABASE_SCHEMA: target.db.schema,
    REDIS_URL,
    REDIS_PREFIX: target.redisPrefix,
    CHAIN_RPC_URL: target.rpcUrl,
    CHAIN_ID: '137',
    USDC_TOKEN_ADDRESS: target.token,
    CONFIRMATIONS: String(CONFIRMATIONS),
    POLL_INTERVAL_MS: '100',
    LEADER_RETRY_MS: '200',
    RPC_TIMEOUT_MS: '2000',
    RPC_BACKOFF_MAX_MS: '1000',
    ...env,
  });
  const app = await buildChainWatcherApp({
    config,
    // The chain-watcher's role, as in production.
    pool: target.db.appPool('chain-watcher'),
    logger: process.env.WATCHER_TEST_LOG ? { level: process.env.WATCHER_TEST_LOG } : false,
  });
  app.chainWatcher.start();
  return app;
}

/** Resolves once the watcher has chosen its first cursor (the head, with no START_BLOCK), with that block. */
export function firstCursor(app: FastifyInstance): Promise<bigint> {
  return waitFor('the first cursor', async () => {
    const block = app.chainWatcher.status().cursorBlock;
    return block === null ? undefined : BigInt(block);
  });
}

/**
 * What each test file stands on: a schema of its own, a local chain, a Redis prefix and the
 * settlement queue under it, and, when asked for, an RPC proxy in front of the chain that the
 * watchers read through. Opened before the file's tests and closed after them, every watcher
 * started through it first.
 */
export interface WatcherBed {
  readonly db: TestDatabase;
  readonly chain: LocalChain;
  /** Only on a bed opened `throughProxy`. */
  readonly proxy: RpcProxy;
  /** Through the proxy when there is one. */
  readonly target: WatcherTarget;
  readonly queue: Queue<SettlementJob>;
  /** Starts a watcher on `target` (with settings `env`); closed with the bed unless closed before. */
  start(env?: Record<string, string>, target?: WatcherTarget): Promise<FastifyInstance>;
  /** `start`, then waits for the watcher's first cursor. */
  watch(env?: Record<string, string>, target?: WatcherTarget): Promise<FastifyInstance>;
}

interface OpenBed {
  db: TestDatabase;
  chain: LocalChain;
  proxy: RpcProxy | undefined;
  target: WatcherTarget;
  queue: Queue<SettlementJob>;
  running: Set<FastifyInstance>;
}

async function openBed(schemaName: string, throughProxy: boolean): Promise<OpenBed> {
  const [db, chain] = await Promise.all([createTestDatabase(schemaName), startLocalChain()]);
  const proxy = throughProxy ? await RpcProxy.start(chain.anvil.rpcUrl) : undefined;
  const target: WatcherTarget = { db, rpcUrl: proxy?.url ?? chain.anvil.rpcUrl, token: chain.token, redisPrefix: uniqueRedisPrefix() };
  return { db, chain, proxy, target, queue: settlementQueue(target.redisPrefix), running: new Set() };
}

async function closeBed({ db, chain, proxy, queue, running }: OpenBed): Promise<void> {
  await Promise.all([...running].map((app) => app.close()));
  await queue.obliterate({ force: true });
  await queue.close();
  await proxy?.close();
  await chain.stop();
  await db.drop();
}

/** Registers the file's beforeAll and afterAll that open and close its bed. */
export function useWatcherBed(schemaName: string, options: { throughProxy?: boolean } = {}): WatcherBed {
  let bed: OpenBed | undefined;
  beforeAll(async () => {
    bed = await openBed(schemaName, options.throughProxy ?? false);
  });
  afterAll(async () => {
    if (bed) await closeBed(bed);
  });
  const open = (): OpenBed => {
    if (!bed) throw new Error('the watcher bed opens in beforeAll');
    return bed;
  };
  const start = async (env: Record<string, string> = {}, on: WatcherTarget = open().target) => {
    const app = await startWatcher(on, env);
    const { running } = open();
    running.add(app);
    app.addHook('onClose', async () => void running.delete(app));
    return app;
  };
  return {
    get db() {
      return open().db;
    },
    get chain() {
      return open().chain;
    },
    get proxy() {
      const { proxy } = open();
      if (!proxy) throw new Error('this watcher bed reads the chain directly: open it with throughProxy');
      return proxy;
    },
    get target() {
      return open().target;
    },
    get queue() {
      return open().queue;
    },
    start,
    async watch(env, on) {
      const app = await start(env, on);
      await firstCursor(app);
      return app;
    },
  };
}

/** How far the watcher has read: -1 before its first cursor. */
export const cursorBlock = (app: FastifyInstance): bigint => BigInt(app.chainWatcher.status().cursorBlock ?? -1);

/** Resolves once the watcher has read up to the chain's head as it is now. */
export async function readUpToHead(app: FastifyInstance, chain: LocalChain): Promise<void> {
  const head = await chain.head();
  await waitFor(`the cursor at ${head}`, async () => cursorBlock(app) >= head);
}

export function settlementQueue(redisPrefix: string): Queue<SettlementJob> {
  const url = new URL(REDIS_URL);
  return new Queue<SettlementJob>(QUEUE_NAMES.settlement, {
    connection: { host: url.hostname, port: Number(url.port || 6379) },
    prefix: redisPrefix,
  });
}

export const uniqueRedisPrefix = (): string => `test-${randomUUID()}`;

export interface DepositRow {
  id: string;
  txHash: string;
  logIndex: number;
  blockNumber: string;
  blockHash: string;
  walletId: string;
  fromAddress: string;
  amount: string;
  status: string;
  finalAt: Date | null;
  /** The block's time, as the watcher recorded it (migration 031). */
  blockTime: Date | null;
}

export async function depositsOf(pool: Pool, walletId: string): Promise<DepositRow[]> {
  const { rows } = await pool.query<DepositRow>(
    `SELECT id::text AS id, tx_hash AS "txHash", log_index AS "logIndex", block_number::text AS "blockNumber",
            block_hash AS "blockHash", wallet_id::text AS "walletId", from_address AS "fromAddress",
            amount::text AS amount, status, final_at AS "finalAt", block_time AS "blockTime"
     FROM deposits WHERE wallet_id = $1 ORDER BY id`,
    [walletId],
  );
  return rows;
}

export async function countDeposits(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM deposits');
  return rows[0]!.n;
}

/** One sample of a metric from the app's /metrics, found by name and (some of) its labels. */
export async function metricValue(app: FastifyInstance, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = text
    .split('\n')
    .find((l) => (l.startsWith(`${name} `) || l.startsWith(`${name}{`)) && wanted.every((label) => l.includes(label)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : Number.NaN;
}
