// Backups and restores that never pay twice (docs/operations.md, "Backups and restores"). A backup is
// taken with pg_dump while the deposits are final but settlement has not paid them; the original
// gateway then pays them, calls the merchant back, sees more deposits and pays those; it is lost.
// The dump is restored into a fresh database and the workers start on it against the same chain:
// the restored gateway must learn the payouts it forgot from the chain instead of paying them again,
// find every deposit made after the backup, and call the merchant back at least once for each.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { erc20Abi, getAddress, parseAbiItem, type Address, type Hash } from 'viem';
import { runGateway } from '@gateway/app-testkit';
import { ensureAppLoginUsers } from '@gateway/db';
import { deleteRedisPrefix, TEST_DATABASE_URL, waitFor } from '@gateway/testkit';
import { closeInOrder, startGatewayStack, type GatewayStack, type WorkerTarget } from './support/gateway-stack';
import { chainReader, createWallet, customerPays, type CreatedWallet } from './support/customer';
import { startRecordingMerchant, type RecordingMerchant } from './support/merchant';

const run = promisify(execFile);
const PAYOUT = getAddress('0x52908400098527886e0f7030069857d2e4169ee7');
const AUTHORIZATION_USED = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)');

let stack: GatewayStack;
let merchant: RecordingMerchant;
let scratch: string;
const restoredDatabase = `gw_restore_${randomBytes(5).toString('hex')}`;
const restoredRedisPrefix = `e2e-restored-${randomBytes(5).toString('hex')}`;

function databaseUrl(name: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  merchant = await startRecordingMerchant();
  scratch = await mkdtemp(join(tmpdir(), 'gateway-backup-'));
  // Settlement held: the backup is taken before any payout is planned or broadcast.
  stack = await startGatewayStack('e2e_restore', { held: ['settlement-worker'] });
}, 150_000);

afterAll(async () => {
  await closeInOrder(stack, merchant);
  await admin((client) => client.query(`DROP DATABASE IF EXISTS "${restoredDatabase}" WITH (FORCE)`));
  await deleteRedisPrefix(restoredRedisPrefix);
  await rm(scratch, { recursive: true, force: true });
}, 60_000);

/** A Process Payment over HTTP (the JSON answer a plugin asks for): the order's intent, recorded before the USDC comes. */
async function processPayment(wallet: CreatedWallet, amount: string): Promise<void> {
  const query = new URLSearchParams({ address: wallet.address_in, amount, provider: 'moonpay', email: 'jane@shop.io', currency: 'USD' });
  const response = await fetch(`${stack.paymentUrl}/process-payment.php?${query}`, { headers: { accept: 'application/json' } });
  expect(response.status).toBe(200);
}

async function depositStatuses(pool: { query: Client['query'] }, hashes: readonly Hash[]): Promise<Map<string, string>> {
  const { rows } = await pool.query<{ tx_hash: string; status: string }>('SELECT tx_hash, status FROM deposits WHERE tx_hash = ANY($1)', [
    hashes.map((hash) => hash.toLowerCase()),
  ]);
  return new Map(rows.map((row) => [row.tx_hash, row.status]));
}

it('restores a backup taken before payouts were broadcast without paying anything twice', async () => {
  const reader = chainReader(stack);
  const balance = (owner: Address) =>
    reader.readContract({ address: stack.token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
  const orders = ['a', 'b', 'c'].map((name) => `${name}-${randomBytes(3).toString('hex')}`);
  const wallets: CreatedWallet[] = [];
  for (const order of orders) {
    const wallet = await createWallet(stack, PAYOUT, `${merchant.url}/ipn?order=${order}`);
    await processPayment(wallet, '20');
    wallets.push(wallet);
  }
  const [walletA, walletB, walletC] = wallets as [CreatedWallet, CreatedWallet, CreatedWallet];

  // Before the backup: one deposit into each wallet, final, its payout not planned yet.
  const before = [
    await customerPays(stack, walletA.polygon_address_in, 10_000_000n),
    await customerPays(stack, walletB.polygon_address_in, 7_000_000n),
    await customerPays(stack, walletC.polygon_address_in, 3_000_000n),
  ].map(({ hash }) => hash);
  await waitFor(
    'the deposits final',
    async () => ([...(await depositStatuses(stack.db.pool, before)).values()].filter((s) => s === 'final').length === 3 ? true : undefined),
    60_000,
  );

  // The backup, as the operations page takes it.
  const dump = join(scratch, 'gateway.dump');
  await run('pg_dump', [
    '--format=custom',
    '--no-password',
    `--schema=${stack.db.schema}`,
    `--file=${dump}`,
    `--dbname=${TEST_DATABASE_URL}`,
  ]);

  // The original gateway goes on: it pays them, and the deposits after the backup, and calls back.
  await stack.workers.start('settlement-worker');
  const after = [
    await customerPays(stack, walletA.polygon_address_in, 4_000_000n),
    await customerPays(stack, walletB.polygon_address_in, 5_000_000n),
  ].map(({ hash }) => hash);
  const paidByOriginal = [...before, ...after];
  const callbackFor = (hash: Hash) => merchant.callbacks.filter((url) => new URL(url).searchParams.get('txid_in') === hash);
  await waitFor(
    'every callback of the original run',
    async () => (paidByOriginal.every((hash) => callbackFor(hash).length > 0) ? true : undefined),
    120_000,
  );

  // The original is lost. One more deposit lands while no gateway runs, into the wallet whose
  // pre-backup deposit the restored database still believes unpaid, and larger than it: a second
  // payout of that deposit would find the funds to move.
  for (const worker of ['chain-watcher', 'settlement-worker', 'callback-worker'] as const) await stack.workers.stop(worker);
  const whileDown = (await customerPays(stack, walletA.polygon_address_in, 12_000_000n)).hash;
  const merchantBefore = await balance(PAYOUT);
  const feeBefore = await balance(stack.platformFeeAddress);

  // The restore: a fresh database, the dump, and the workers on it against the same chain and an empty Redis prefix.
  await admin((client) => client.query(`CREATE DATABASE "${restoredDatabase}"`));
  await run('pg_restore', ['--exit-on-error', '--single-transaction', '--no-password', `--dbname=${databaseUrl(restoredDatabase)}`, dump]);
  // Steps 3 and 4 of the procedure: migrations and privileges again, the HD index sequence moved on.
  const migrated = await runGateway(['migrate'], { DATABASE_URL: databaseUrl(restoredDatabase), DATABASE_SCHEMA: stack.db.schema });
  expect(migrated.stderr).toBe('');
  expect(migrated.code).toBe(0);
  await run('psql', [
    databaseUrl(restoredDatabase),
    '--no-psqlrc',
    `--command=SET search_path TO "${stack.db.schema}"; SELECT setval('wallet_hd_index_seq', (SELECT last_value FROM wallet_hd_index_seq) + 1000000)`,
  ]);
  const restored = new Client({ connectionString: databaseUrl(restoredDatabase) });
  await restored.connect();
  try {
    await restored.query(`SET search_path TO "${stack.db.schema}"`);
    const target: WorkerTarget = {
      databaseUrls: await ensureAppLoginUsers(TEST_DATABASE_URL, databaseUrl(restoredDatabase)),
      schema: stack.db.schema,
      redisPrefix: restoredRedisPrefix,
    };
    // Before the workers start: the check lists what the restored database forgot. Each deposit's
    // two legs paid after the backup are payouts it does not know; the deposits after its checkpoint
    // are on chain and not in it.
    const checkEnv = {
      DATABASE_URL: databaseUrl(restoredDatabase),
      DATABASE_SCHEMA: stack.db.schema,
      CHAIN_RPC_URL: stack.chain.rpcUrl,
      CHAIN_ID: String(stack.chain.chainId),
      USDC_TOKEN_ADDRESS: stack.token,
    };
    const check = await runGateway(['restore', 'check', '--json'], checkEnv);
    expect(check.stderr).toBe('');
    expect(check.code).toBe(4);
    const kinds = (JSON.parse(check.stdout) as { findings: { kind: string }[] }).findings.map((finding) => finding.kind);
    expect(kinds.filter((kind) => kind === 'payout_unknown')).toHaveLength(10);
    expect(kinds.filter((kind) => kind === 'deposit_after_checkpoint')).toHaveLength(3);
    expect(kinds).toHaveLength(13);
    const callbacksBeforeRestore = merchant.callbacks.length;
    for (const worker of ['chain-watcher', 'settlement-worker', 'callback-worker'] as const) await stack.workers.start(worker, target);

    const everyDeposit = [...paidByOriginal, whileDown];
    // Each deposit forwarded, or stopped for a person: what paying a deposit again ends in, for the
    // deposits whose wallet it emptied. The balances below then say what was paid.
    const settled = await waitFor(
      'every deposit forwarded or stopped in the restored database',
      async () => {
        const statuses = [...(await depositStatuses(restored, everyDeposit)).values()];
        const done = statuses.filter((status) => status === 'forwarded' || status === 'needs_attention');
        return statuses.length === everyDeposit.length && done.length === statuses.length ? statuses : undefined;
      },
      150_000,
    );
    if (!settled.includes('needs_attention')) {
      await waitFor(
        'every leg confirmed',
        async () => {
          const { rows } = await restored.query(`SELECT count(*)::int AS open FROM payouts WHERE status <> 'confirmed'`);
          return rows[0].open === 0 ? true : undefined;
        },
        60_000,
      );
    }

    // Nothing paid twice: only the deposit that came while no gateway ran moved anything more, by exactly its legs.
    expect((await balance(PAYOUT)) - merchantBefore).toBe(11_880_000n);
    expect((await balance(stack.platformFeeAddress)) - feeBefore).toBe(120_000n);
    for (const wallet of wallets) expect(await balance(wallet.polygon_address_in)).toBe(0n);
    expect(await balance(PAYOUT)).toBe((41_000_000n * 99n) / 100n);
    expect(settled).toEqual(everyDeposit.map(() => 'forwarded'));
    await waitFor(
      'a callback for every deposit',
      async () => (everyDeposit.every((hash) => callbackFor(hash).length > 0) ? true : undefined),
      60_000,
    );

    // The chain's authorizations and the restored relayer's records reconcile: one confirmed leg per
    // authorization used, none used twice, none recorded that the chain did not execute.
    const used = await reader.getLogs({ address: stack.token, event: AUTHORIZATION_USED, fromBlock: 0n, toBlock: 'latest' });
    const onChain = used.map((log) => `${log.args.authorizer?.toLowerCase()}:${log.args.nonce}`).sort();
    expect(new Set(onChain).size).toBe(onChain.length);
    const { rows: legs } = await restored.query<{ key: string }>(
      `SELECT from_address || ':' || authorization_nonce AS key FROM payouts WHERE status = 'confirmed' ORDER BY 1`,
    );
    expect(legs.map((leg) => leg.key)).toEqual(onChain);
    expect(onChain).toHaveLength(12);
    // The restored database learnt each forgotten payout as the chain has it: the original's transactions.
    const { rows: learnt } = await restored.query<{ n: number }>(
      `SELECT count(DISTINCT d.id)::int AS n FROM deposits d JOIN payouts p ON p.deposit_id = d.id WHERE d.tx_hash = ANY($1)`,
      [paidByOriginal.map((hash) => hash.toLowerCase())],
    );
    expect(learnt[0]?.n).toBe(5);

    // Every callback at least once; the deposit made while no gateway ran, called back by the restored one.
    expect(callbackFor(whileDown)).toHaveLength(1);
    expect(merchant.callbacks.length).toBeGreaterThan(callbacksBeforeRestore);

    // Caught up, the restored database and the chain agree.
    await waitFor(
      'every callback of the restored database delivered',
      async () => {
        const { rows } = await restored.query(`SELECT count(*)::int AS open FROM callback_deliveries WHERE status <> 'delivered'`);
        return rows[0].open === 0 ? true : undefined;
      },
      60_000,
    );
    const agreeing = await runGateway(['restore', 'check'], checkEnv);
    expect(agreeing.stdout).toContain('nothing found: the database and the chain agree');
    expect(agreeing.code).toBe(0);
  } finally {
    for (const worker of ['chain-watcher', 'settlement-worker', 'callback-worker'] as const) await stack.workers.stop(worker);
    await restored.end();
  }
}, 420_000);
