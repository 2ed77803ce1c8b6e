// Load test of the limits on new wallets (issue 35): one hostile client at full speed beside a shop
// creating wallets at its normal rate, against wallet-control as it runs (its own process, the
// production defaults of the rate limit, the quota, the ceiling and the per-client budget), over
// loopback only. The hostile client (127.0.0.2) asks for new wallets with random payout addresses
// and with the shop's own, each on a callback origin of its own; the shop (127.0.0.3) places an
// order every BENCH_SHOP_INTERVAL_MS on its callback. Two rounds: open mode, and PAYOUT_ADDRESSES
// pinned to the shop's address (the hostile client then uses the shop's). Every shop order must
// get its wallet; the bench prints a table and writes bench/results/new-wallet-fairness.json, and
// exits non-zero when a shop order was refused. `pnpm bench:fairness`; BENCH_SMOKE=1 for 3 s rounds.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Agent, request } from 'undici';
import { createPool, migrate } from '@gateway/db';
import { sleep, stopProcess } from '@gateway/testkit';
import { apiAppEnvironments, appCommand, newBenchRun, removeBenchRun, type BenchRun } from './bench-apps';
import { benchInt, printMarkdownTable, resultsFile } from './bench-mode';
import { children, startService, type Service } from './bench-services';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = benchInt('BENCH_SECONDS', 20, 3);
const HOSTILE_CONNECTIONS = benchInt('BENCH_HOSTILE_CONNECTIONS', 16, 4);
const SHOP_INTERVAL_MS = benchInt('BENCH_SHOP_INTERVAL_MS', 1_000, 250);
const SHOP_PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7';
const HOSTILE_ADDRESS = '127.0.0.2';
const SHOP_ADDRESS = '127.0.0.3';

interface Tally {
  requests: number;
  /** Status code, or the error code of a 4xx/5xx body, and how many. */
  outcomes: Record<string, number>;
}

interface Round {
  mode: 'open' | 'pinned';
  seconds: number;
  hostile: Tally & { requestsPerSecond: number };
  shop: Tally & { refused: number; latencyMsP99: number };
}

async function main(): Promise<void> {
  const rounds: Round[] = [];
  for (const mode of ['open', 'pinned'] as const) rounds.push(await runRound(mode));
  printTable(rounds);
  const file = resultsFile('new-wallet-fairness.json');
  mkdirSync(dirname(file), { recursive: true });
  const settings = { seconds: SECONDS, hostileConnections: HOSTILE_CONNECTIONS, shopIntervalMs: SHOP_INTERVAL_MS };
  writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), settings, rounds }, null, 2)}\n`);
  console.log(`\nresults: ${file}`);
  const refused = rounds.reduce((sum, round) => sum + round.shop.refused, 0);
  if (refused > 0) {
    console.error(`FAIL: ${refused} of the shop's orders were refused`);
    process.exitCode = 1;
  }
}

/** One round on a schema and Redis prefix of its own: the minute's counters start at nothing. */
async function runRound(mode: Round['mode']): Promise<Round> {
  const run = newBenchRun();
  const admin = createPool({ connectionString: DATABASE_URL, schema: run.schema, max: 2, applicationName: 'bench-fairness' });
  try {
    await migrate(admin, run.schema);
    const app = await startWalletControl(run, mode === 'pinned' ? { PAYOUT_ADDRESSES: SHOP_PAYOUT } : {});
    try {
      return await measureRound(app.url, mode);
    } finally {
      await stopProcess(app.child);
    }
  } finally {
    await removeBenchRun(admin, run);
    await admin.end();
  }
}

async function measureRound(url: string, mode: Round['mode']): Promise<Round> {
  const hostileAgent = new Agent({ localAddress: HOSTILE_ADDRESS, connections: HOSTILE_CONNECTIONS });
  const shopAgent = new Agent({ localAddress: SHOP_ADDRESS });
  const hostile: Tally = { requests: 0, outcomes: {} };
  const shop: Tally & { latencies: number[] } = { requests: 0, outcomes: {}, latencies: [] };
  const endsAt = Date.now() + SECONDS * 1000;
  const createWallet = async (agent: Agent, payout: string, callback: string, tally: Tally) => {
    const query = new URLSearchParams({ address: payout, callback });
    const response = await request(`${url}/control/wallet.php?${query}`, { dispatcher: agent });
    const body = (await response.body.json()) as { code?: string };
    const outcome = response.statusCode === 200 ? '200' : `${response.statusCode} ${body.code ?? ''}`.trim();
    tally.requests += 1;
    tally.outcomes[outcome] = (tally.outcomes[outcome] ?? 0) + 1;
  };
  // Full speed: each connection sends its next request as soon as the last is answered.
  const hostileLoop = async () => {
    while (Date.now() < endsAt) {
      const payout = mode === 'pinned' || Math.random() < 0.5 ? SHOP_PAYOUT : `0x${randomBytes(20).toString('hex')}`;
      const origin = `https://h${randomBytes(6).toString('hex')}.hostile.io`;
      await createWallet(hostileAgent, payout, `${origin}/cb?order=${randomBytes(4).toString('hex')}`, hostile);
    }
  };
  const shopLoop = async () => {
    let order = 0;
    while (Date.now() < endsAt) {
      const started = performance.now();
      await createWallet(shopAgent, SHOP_PAYOUT, `https://shop.io/ipn?order_id=${mode}-${++order}`, shop);
      shop.latencies.push(performance.now() - started);
      await sleep(SHOP_INTERVAL_MS);
    }
  };
  const started = Date.now();
  await Promise.all([...Array.from({ length: HOSTILE_CONNECTIONS }, hostileLoop), shopLoop()]);
  const seconds = (Date.now() - started) / 1000;
  await Promise.all([hostileAgent.close(), shopAgent.close()]);
  const sorted = shop.latencies.sort((a, b) => a - b);
  return {
    mode,
    seconds: Number(seconds.toFixed(1)),
    hostile: { ...hostile, requestsPerSecond: Math.round(hostile.requests / seconds) },
    shop: {
      requests: shop.requests,
      outcomes: shop.outcomes,
      refused: shop.requests - (shop.outcomes['200'] ?? 0),
      latencyMsP99: Number((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0).toFixed(1)),
    },
  };
}

function printTable(rounds: Round[]): void {
  const outcomes = (tally: Tally) =>
    Object.entries(tally.outcomes)
      .sort(([, a], [, b]) => b - a)
      .map(([outcome, count]) => `${count} × ${outcome}`)
      .join(', ');
  const header = ['mode', 'who', 'requests', 'req/s', 'answers', 'shop orders refused'];
  const rows = rounds.flatMap((round) => [
    [round.mode, 'hostile client', String(round.hostile.requests), String(round.hostile.requestsPerSecond), outcomes(round.hostile), ''],
    [
      round.mode,
      'shop',
      String(round.shop.requests),
      '',
      outcomes(round.shop),
      `${round.shop.refused} (p99 ${round.shop.latencyMsP99} ms)`,
    ],
  ]);
  printMarkdownTable(header, rows);
}

function startWalletControl(run: BenchRun, overrides: Record<string, string>): Promise<Service> {
  const env = {
    ...apiAppEnvironments(DATABASE_URL, run).walletControl,
    // The production defaults of every limit on new wallets and of the rate limit: what is under test.
    RATE_LIMIT_MAX: '600',
    PAYOUT_WALLET_QUOTA_MAX: '1000',
    NEW_WALLETS_PER_MINUTE: '600',
    LOG_LEVEL: 'warn',
    ...overrides,
  };
  return startService('wallet-control', appCommand('wallet-control', 'source'), env);
}

main().catch((error: unknown) => {
  console.error(error);
  for (const child of children) child.kill('SIGKILL');
  process.exitCode = 1;
});
