// docs/upgrades.md, done to a running gateway: the previous release (e2e/upgrade-baseline.json),
// built from its commit and run from dist as its images run it, takes orders, payments and deposits
// while this checkout's migrations run and its apps replace the old ones one by one, in the
// documented order; then the rollback: the previous release's apps again, on the new schema.
// Proved after each: every deposit paid out exactly once (the token's transfers out of the temporary
// wallets are the recorded legs, one for one), every callback delivered, no API request failed, no
// job left or failed in the queues.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { erc20Abi, parseAbiItem, type Address, type Hash } from 'viem';
import { runGateway } from '@gateway/app-testkit';
import { appEntry, appNodeArguments } from '@gateway/config';
import { sleep, TEST_DATABASE_URL, waitFor } from '@gateway/testkit';
import { chainReader, customerPays } from '../support/customer';
import {
  type AppRelease,
  type GatewayApp,
  type GatewayStack,
  type ReplicaControl,
  startGatewayStack,
  THIS_CHECKOUT,
} from '../support/gateway-stack';
import { checkCallback } from '../support/merchant';
import { prepareRelease, type ReleaseCheckout, readUpgradeBaseline } from '../support/release-checkout';

const PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7' as Address;
/** The order docs/upgrades.md replaces the apps in: each queue's consumer before its producers. */
const UPGRADE_ORDER: GatewayApp[] = ['callback-worker', 'settlement-worker', 'chain-watcher', 'payment-redirect', 'wallet-control'];
const RELEASE_APPS = [...UPGRADE_ORDER, 'cli'];

let previous: ReleaseCheckout;
let stack: GatewayStack & ReplicaControl;
let merchant: Server;
let merchantUrl: string;
/** While false the shop's server answers 503: its callbacks wait in the queue, retried. */
let merchantUp = true;
/** Each valid signed callback's txid_in, as many times as it came. */
const callbacksByTx = new Map<string, number>();
const callbackRefusals = { answered503: 0, badSignature: 0 };

beforeAll(async () => {
  previous = prepareRelease(readUpgradeBaseline().commit, RELEASE_APPS);
  merchant = createServer((request, response) => {
    const url = `${merchantUrl}${request.url}`;
    if (!merchantUp) {
      callbackRefusals.answered503 += 1;
      response.writeHead(503).end();
      return;
    }
    const verdict = checkCallback(url, request, { publicKey: stack.callbackPublicKey, payoutAddress: PAYOUT, amount: false });
    if (!verdict.ok) {
      callbackRefusals.badSignature += 1;
      response.writeHead(400).end();
      return;
    }
    const tx = new URL(url).searchParams.get('txid_in') ?? '';
    callbacksByTx.set(tx, (callbacksByTx.get(tx) ?? 0) + 1);
    response.writeHead(200).end('*ok*');
  });
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
  stack = await startGatewayStack('upgrade', {
    release: previous,
    // The previous release's migrations make the schema, as its deployment did.
    migrate: (schema) => runCli(previous, ['migrate'], { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema }),
    fronts: true,
    settings: {
      // One test client places every order: the per-client limits would stop the load, not the upgrade.
      'wallet-control': {
        RATE_LIMIT_MAX: '100000',
        NEW_WALLETS_PER_CLIENT_PER_MINUTE: '3000',
        NEW_WALLETS_PER_MINUTE: '6000',
        PAYOUT_WALLET_QUOTA_MAX: '100000',
      },
      'payment-redirect': { RATE_LIMIT_MAX: '100000' },
      // A merchant down for a while is retried within seconds, not the production minutes, and as
      // long as production's three days of retries would last (1,000 retries: 25 minutes here).
      'callback-worker': { CALLBACK_RETRY_FIRST_DELAY_MS: '300', CALLBACK_RETRY_MAX_DELAY_MS: '1500', CALLBACK_RETRY_MAX_RETRIES: '1000' },
    },
  });
}, 900_000);

afterAll(async () => {
  await stack?.stop();
  await new Promise<void>((resolve) => (merchant ? merchant.close(() => resolve()) : resolve()));
  previous?.remove();
});

/** `gateway <args>` of `release` as a process; throws with its output unless it exits 0. */
async function runCli(release: AppRelease, args: string[], env: Record<string, string>): Promise<string> {
  if (release === THIS_CHECKOUT) {
    const run = await runGateway(args, env, 120_000);
    if (run.code !== 0) throw new Error(`gateway ${args.join(' ')} (this checkout) exited ${run.code}: ${run.output}`);
    return run.stdout;
  }
  const child = spawn(
    process.execPath,
    [...appNodeArguments('cli', release.runtime), join(release.root, appEntry('cli', release.runtime)), ...args],
    {
      cwd: release.root,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`gateway ${args.join(' ')} (${release.root}) exited ${code}: ${output}`);
  return output;
}

interface Order {
  addressIn: string;
  temporary: Address;
}

interface Load {
  /** Answers by request and status ('error' when none came). */
  answers: Map<string, number>;
  orders: Order[];
  /** Customer transfers into temporary wallets, mined. */
  deposits: { tx: Hash; to: Address; amount: bigint }[];
  stop(): Promise<void>;
}

/**
 * What shops and customers do meanwhile: an order every 500 ms (Create Wallet, then Process Payment
 * for it), and a customer paying the oldest unpaid order every other block or so.
 */
function startLoad(label: string): Load {
  const load: Load = { answers: new Map(), orders: [], deposits: [], stop: async () => undefined };
  const count = (what: string) => load.answers.set(what, (load.answers.get(what) ?? 0) + 1);
  let running = true;
  let sequence = 0;
  const placeOrder = async () => {
    const order = `${label}-${sequence++}`;
    const callback = `${merchantUrl}/ipn?order=${order}`;
    try {
      const created = await fetch(
        `${stack.walletControlUrl}/control/wallet.php?address=${PAYOUT}&callback=${encodeURIComponent(callback)}`,
      );
      count(`create-wallet ${created.status}`);
      if (!created.ok) return;
      const wallet = (await created.json()) as { address_in: string; polygon_address_in: Address };
      const query = new URLSearchParams({
        address: wallet.address_in,
        amount: '25',
        provider: 'moonpay',
        email: 'jane@shop.io',
        currency: 'USD',
      });
      const payment = await fetch(`${stack.paymentUrl}/process-payment.php?${query}`, { headers: { accept: 'application/json' } });
      count(`process-payment ${payment.status}`);
      await payment.arrayBuffer();
      load.orders.push({ addressIn: wallet.address_in, temporary: wallet.polygon_address_in });
    } catch (error) {
      count(`error ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const ordering = (async () => {
    const inFlight = new Set<Promise<void>>();
    while (running) {
      const placed = placeOrder().finally(() => inFlight.delete(placed));
      inFlight.add(placed);
      await sleep(500);
    }
    await Promise.all(inFlight);
  })();
  const paying = (async () => {
    let next = 0;
    while (running) {
      const order = load.orders[next];
      if (!order) {
        await sleep(100);
        continue;
      }
      next += 1;
      // Distinct amounts, each well above the dust a fee must outweigh.
      const amount = 20_000_000n + BigInt(load.deposits.length);
      const { hash } = await customerPays(stack, order.temporary, amount);
      load.deposits.push({ tx: hash, to: order.temporary, amount });
      await sleep(1_000);
    }
  })();
  load.stop = async () => {
    running = false;
    await Promise.all([ordering, paying]);
  };
  return load;
}

/** Replaces every replica of `app` by one of `release`, the way the procedure does for that kind of app. */
async function replace(app: GatewayApp, release: AppRelease): Promise<{ app: GatewayApp; ms: number }> {
  const started = Date.now();
  const old = stack.replicas(app);
  if (app === 'settlement-worker') {
    // Stopped first, as compose recreates a container: deposits that become final meanwhile wait
    // in the settlement queue for the new worker.
    await Promise.all(old.map((replica) => stack.stopReplica(replica)));
    await sleep(4_000);
    await stack.startReplica(app, release);
  } else {
    // Started first, as a rolling update does: the new replica is ready, then (API apps) takes the
    // front, then the old one drains and exits; a watcher stands by until the old leader lets go.
    const replica = await stack.startReplica(app, release);
    if (app === 'wallet-control' || app === 'payment-redirect') stack.route(replica);
    await Promise.all(old.map((oldReplica) => stack.stopReplica(oldReplica)));
  }
  expect(stack.replicas(app).map((replica) => replica.release)).toEqual([release]);
  return { app, ms: Date.now() - started };
}

interface Settled {
  deposits: number;
  legs: number;
  callbacks: number;
}

/** Waits until every deposit of `load` is forwarded and called back, then checks each was paid out exactly once. */
async function expectEverySettledOnce(load: Load): Promise<Settled> {
  const txs = load.deposits.map((deposit) => deposit.tx.toLowerCase());
  // Where the deposits stand, by deposit and delivery status: the failure names what is missing.
  let standing: Record<string, number> = {};
  try {
    await waitFor(
      `${txs.length} deposits forwarded and called back`,
      async () => {
        const { rows } = await stack.db.pool.query<{ state: string; n: string }>(
          `SELECT d.status || '/' || coalesce(c.status, 'no delivery') AS state, count(*) AS n
             FROM deposits d LEFT JOIN callback_deliveries c ON c.deposit_id = d.id WHERE d.tx_hash = ANY($1) GROUP BY 1`,
          [txs],
        );
        standing = Object.fromEntries(rows.map((row) => [row.state, Number(row.n)]));
        return standing['forwarded/delivered'] === txs.length;
      },
      300_000,
      500,
    );
  } catch (error) {
    const recorded = Object.values(standing).reduce((sum, n) => sum + n, 0);
    throw new Error(`${(error as Error).message}: ${JSON.stringify({ ...standing, 'not recorded': txs.length - recorded })}`);
  }
  // One deposit per customer transfer, each forwarded, with one delivery.
  const { rows: deposits } = await stack.db.pool.query<{ tx_hash: string; amount: string; status: string }>(
    'SELECT tx_hash, amount::text, status FROM deposits WHERE tx_hash = ANY($1) ORDER BY tx_hash',
    [txs],
  );
  expect(deposits).toEqual(
    load.deposits
      .map((deposit) => ({ tx_hash: deposit.tx.toLowerCase(), amount: String(deposit.amount), status: 'forwarded' }))
      .sort((a, b) => a.tx_hash.localeCompare(b.tx_hash)),
  );
  // The token's own record: every transfer out of a temporary wallet is one confirmed leg, and every leg one transfer.
  const temporaries = new Set(load.deposits.map((deposit) => deposit.to.toLowerCase()));
  const reader = chainReader(stack);
  const transfers = await reader.getLogs({
    address: stack.token,
    event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
    fromBlock: 0n,
    toBlock: 'latest',
  });
  const onChain = transfers
    .filter((log) => temporaries.has((log.args.from ?? '').toLowerCase()))
    .map((log) => `${log.transactionHash} ${log.args.from?.toLowerCase()} ${log.args.to?.toLowerCase()} ${log.args.value}`)
    .sort();
  const { rows: legs } = await stack.db.pool.query<{ leg: string }>(
    `SELECT p.tx_hash || ' ' || p.from_address || ' ' || p.to_address || ' ' || p.amount::text AS leg
       FROM payouts p JOIN deposits d ON d.id = p.deposit_id WHERE p.status = 'confirmed' AND p.from_address = ANY($1)`,
    [[...temporaries]],
  );
  expect(onChain).toEqual(legs.map((row) => row.leg).sort());
  for (const temporary of temporaries) {
    expect(
      await reader.readContract({ address: stack.token, abi: erc20Abi, functionName: 'balanceOf', args: [temporary as Address] }),
    ).toBe(0n);
  }
  // Every deposit called back, its signature valid, at least once.
  expect(load.deposits.filter((deposit) => !callbacksByTx.has(deposit.tx))).toEqual([]);
  expect(callbackRefusals.badSignature).toBe(0);
  return { deposits: deposits.length, legs: legs.length, callbacks: txs.reduce((sum, tx) => sum + (callbacksByTx.get(tx) ?? 0), 0) };
}

/** Every answer of the load a success: Create Wallet 200, Process Payment 200. */
function expectNoFailedRequest(load: Load): void {
  const failed = [...load.answers].filter(([what]) => !/^(create-wallet|process-payment) 200$/.test(what));
  expect(failed).toEqual([]);
  expect(load.answers.get('create-wallet 200')).toBeGreaterThan(20);
  expect(load.answers.get('process-payment 200')).toBe(load.answers.get('create-wallet 200'));
}

/**
 * No job failed in any queue, and none is left waiting, delayed or active in the queues that carry
 * money and callbacks (the provider-status queue keeps each payment's next poll, delayed, by design).
 */
async function expectQueuesDrained(): Promise<void> {
  const report = JSON.parse(await runCli(THIS_CHECKOUT, ['queues', '--json'], { REDIS_PREFIX: stack.redisPrefix })) as {
    queues: { queue: string; counts: Record<string, number> }[];
  };
  expect(report.queues.map(({ queue, counts }) => ({ queue, failed: counts.failed }))).toEqual(
    report.queues.map(({ queue }) => ({ queue, failed: 0 })),
  );
  const left = report.queues
    .filter(({ queue }) => queue === 'settlement' || queue === 'callbacks')
    .map(({ queue, counts }) => ({ queue, waiting: counts.waiting, delayed: counts.delayed, active: counts.active }));
  expect(left).toEqual([
    { queue: 'settlement', waiting: 0, delayed: 0, active: 0 },
    { queue: 'callbacks', waiting: 0, delayed: 0, active: 0 },
  ]);
}

const pendingCallbacks = async () =>
  Number(
    (
      await stack.db.pool.query<{ n: string }>(
        "SELECT count(*) AS n FROM callback_deliveries WHERE status = 'pending' AND attempt_count > 0",
      )
    ).rows[0]?.n,
  );

it('upgrades from the previous release under load, in the documented order, with nothing lost and nothing paid twice', async () => {
  const started = Date.now();
  const load = startLoad('up');
  await waitFor('deposits under way on the previous release', () => load.deposits.length >= 4, 60_000, 200);
  // The shop goes down: its callbacks wait, retried, through the whole upgrade.
  merchantUp = false;
  await waitFor('callbacks waiting for the shop', async () => (await pendingCallbacks()) > 0, 60_000, 200);

  // 1. This release's migrations, as the owner, while the previous release's apps keep working.
  await runCli(THIS_CHECKOUT, ['migrate'], { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: stack.db.schema });
  const migratedAt = load.answers.get('create-wallet 200') ?? 0;
  await waitFor(
    'orders placed by the previous release on the new schema',
    () => (load.answers.get('create-wallet 200') ?? 0) > migratedAt + 4,
    30_000,
    100,
  );

  // 2. The apps, each queue's consumer before its producers.
  const steps: { app: GatewayApp; ms: number }[] = [];
  for (const app of UPGRADE_ORDER) {
    if (app === 'settlement-worker') {
      const replaced = replace(app, THIS_CHECKOUT);
      // With no settlement worker running, final deposits wait in its queue.
      await waitFor(
        'a final deposit queued while no settlement worker runs',
        async () => {
          const { rows } = await stack.db.pool.query<{ n: string }>("SELECT count(*) AS n FROM deposits WHERE status = 'final'");
          return Number(rows[0]?.n) > 0;
        },
        30_000,
        200,
      );
      steps.push(await replaced);
    } else {
      steps.push(await replace(app, THIS_CHECKOUT));
    }
  }
  expect(await pendingCallbacks()).toBeGreaterThan(0);
  merchantUp = true;
  await sleep(5_000);
  await load.stop();

  const settled = await expectEverySettledOnce(load);
  expectNoFailedRequest(load);
  await expectQueuesDrained();
  // What it cost, for docs/upgrades.md and docs/tests.md.
  console.info(
    `upgrade ${previous.commit.slice(0, 8)} → this checkout: release prepared in ${JSON.stringify(previous.timings)} ms ` +
      `(dependencies from the ${previous.installedFrom}); apps replaced ${JSON.stringify(steps)}; ` +
      `${JSON.stringify(Object.fromEntries(load.answers))}; ${JSON.stringify(settled)}; ` +
      `${callbackRefusals.answered503} callbacks refused while the shop was down; ${Date.now() - started} ms`,
  );
}, 600_000);

it('rolls back: the previous release on the new schema takes orders and settles deposits again', async () => {
  const started = Date.now();
  const load = startLoad('down');
  await waitFor('deposits under way on this release', () => load.deposits.length >= 2, 60_000, 200);
  // The reverse order: the producers first, so no new job waits for a consumer of the old release.
  for (const app of [...UPGRADE_ORDER].reverse()) await replace(app, previous);
  await waitFor('deposits paid on the previous release again', () => load.deposits.length >= 8, 90_000, 200);
  await load.stop();

  const settled = await expectEverySettledOnce(load);
  expectNoFailedRequest(load);
  await expectQueuesDrained();
  console.info(`rollback: ${JSON.stringify(Object.fromEntries(load.answers))}; ${JSON.stringify(settled)}; ${Date.now() - started} ms`);
}, 600_000);
