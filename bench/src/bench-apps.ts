// What the benches that start the API apps share: their settings and how they are started, from
// TypeScript sources (tsx, as `pnpm dev` and the tests) or from the compiled dist/ (as the images).
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'undici';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { english, generateMnemonic } from 'viem/accounts';
import type { Pool } from 'pg';
import { type AppRuntime, appEntry, appNodeArguments } from '@gateway/config';
import { xpubFromMnemonic } from '@gateway/chain';
import { deleteRedisPrefix } from '@gateway/testkit';

export const ROOT = join(__dirname, '..', '..');

/** BENCH_RUNTIME: `source` (the default) or `dist`, which needs `pnpm build` first. */
export function benchRuntime(): AppRuntime {
  const runtime = process.env.BENCH_RUNTIME ?? 'source';
  if (runtime !== 'source' && runtime !== 'dist') throw new Error(`BENCH_RUNTIME must be source or dist (got "${runtime}")`);
  return runtime;
}

/** Node's arguments that start `app` (a folder under apps/) from `runtime`. */
export function appCommand(app: string, runtime: AppRuntime): string[] {
  const entry = appEntry(app, runtime);
  if (!existsSync(join(ROOT, entry))) throw new Error(`${entry} is missing: run pnpm build first`);
  return [...appNodeArguments(app, runtime), entry];
}

/** What one run owns: a schema in PostgreSQL and a key prefix in Redis, both removed when it ends. */
export interface BenchRun {
  schema: string;
  redisPrefix: string;
}

export function newBenchRun(): BenchRun {
  const id = randomBytes(4).toString('hex');
  return { schema: `bench_${id}`, redisPrefix: `bench-${id}` };
}

/**
 * Drops the run's schema and deletes its Redis keys: the apps' queues and jobs (Process Payment
 * schedules a status look-up per payment) would otherwise stay in Redis after every run, ~30 MB a
 * run of the HTTP bench, and slow the runs after it.
 */
export async function removeBenchRun(admin: Pool, run: BenchRun): Promise<void> {
  await admin
    .query(`DROP SCHEMA IF EXISTS "${run.schema}" CASCADE`)
    .catch((error: Error) => console.error(`could not drop schema ${run.schema}: ${error.message}`));
  await deleteRedisPrefix(run.redisPrefix).catch((error: Error) =>
    console.error(`could not delete the Redis keys under ${run.redisPrefix}: ${error.message}`),
  );
}

/** Throw-away keys and settings close to production for the two API apps, except what a local bench needs. */
export function apiAppEnvironments(
  databaseUrl: string,
  { schema, redisPrefix }: BenchRun,
): { walletControl: Record<string, string>; paymentRedirect: Record<string, string> } {
  const common = {
    NODE_ENV: 'development',
    // As operators run it: request logs on.
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    DATABASE_SCHEMA: schema,
    DATABASE_POOL_SIZE: '10',
    ADDRESS_IN_KEYS: `bench1:${randomBytes(32).toString('base64')}`,
    // One client IP sends everything; the limiter still runs (in Redis), it just never says no.
    RATE_LIMIT_MAX: '1000000000',
    REDIS_PREFIX: redisPrefix,
  };
  return {
    walletControl: {
      ...common,
      HD_XPUB: xpubFromMnemonic(generateMnemonic(english)),
      CALLBACK_ALLOW_TEST_DOMAINS: 'false',
      // One payout address gets every new wallet; the quota still counts (in Redis), it just never says no.
      PAYOUT_WALLET_QUOTA_MAX: '1000000000',
      // The gateway-wide ceiling too: counted with the quota, in the same round trips, never reached.
      NEW_WALLETS_PER_MINUTE: '1000000000',
    },
    paymentRedirect: {
      ...common,
      SANDBOX_CHECKOUT: 'on',
      SANDBOX_SIGNING_SECRET: randomBytes(32).toString('base64'),
      // The benches record thousands of payments per wallet: measured, not refused as an order soaked with attempts.
      ORDER_ATTEMPTS_MAX: '1000000',
    },
  };
}

/** The resident set of a running process, from the kernel (VmRSS), in MB. */
export function residentMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024);
}

/** The machine a run measured, printed above its table and kept with its results. */
export async function describeMachine(admin: Pool) {
  const { rows } = await admin.query<{ version: string }>("SELECT current_setting('server_version') AS version");
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    os: `${process.platform} ${release()}`,
    postgres: `PostgreSQL ${rows[0]?.version ?? 'unknown'}`,
    loadAverage: loadavg().map((load) => Number(load.toFixed(2))),
  };
}

/** The payout address every bench's wallets pay out to. */
const BENCH_PAYOUT_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

/** Create Wallet for a shop's order `order` (its callback names it): the wallet's address_in. */
export async function createShopWallet(walletControlUrl: string, order: string): Promise<string> {
  const callback = encodeURIComponent(`https://shop.io/ipn?order=${order}`);
  const response = await request(`${walletControlUrl}/control/wallet.php?address=${BENCH_PAYOUT_ADDRESS}&callback=${callback}`);
  const body = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`Create Wallet answered ${response.statusCode}: ${body}`);
  return (JSON.parse(body) as { address_in: string }).address_in;
}
