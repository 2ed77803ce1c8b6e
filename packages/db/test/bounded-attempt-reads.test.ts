import { randomBytes } from 'node:crypto';
import type { Pool, QueryConfig } from 'pg';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { PaymentReceiptRepository } from '../src/repositories/payment-receipt-repository';
import { PaymentStatusRepository } from '../src/repositories/payment-status-repository';
import { DepositRepository } from '../src/repositories/deposit-repository';

// Issue 35: an order soaked with attempts (71,000 under a soak) made its receipt and Check Payment
// Status slower with every attempt, since both read all of them. Seeded here with 20,000 attempts, each
// read must touch a bounded number of payments rows whatever the count: measured with EXPLAIN ANALYZE
// (rows returned and rows filtered out at every node over the payments table), never with a clock.

const ATTEMPTS = 20_000;
/** Rows of payments a read may touch: a few index look-ups of at most a page of attempts each, whatever ATTEMPTS is. */
const BOUND = 200;

let db: TestDatabase;
const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;
let walletId: string;
let ipnToken: string;
let first: string;
let reporter: string;
let latest: string[];
let reportedTx: string;
let timeRuleTx: string;
const depositIds: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase('bounded_attempt_reads');
  ipnToken = randomBytes(24).toString('base64url');
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
     VALUES (1, $1, 'sealed', $2, 'https://shop.io/ipn?order=soak', $3, $4) RETURNING id::text`,
    [hex(20), hex(20), randomBytes(32), ipnToken],
  );
  walletId = rows[0]!.id;
  // One attempt a second, the first 20,000 s ago; the 10,000th reported the transaction it sent.
  reportedTx = hex(32);
  timeRuleTx = hex(32);
  await db.pool.query(
    `INSERT INTO payments (id, wallet_id, amount, currency, provider, email, status, checkout_url, created_at, provider_tx_hash)
     SELECT gen_random_uuid(), $1, 25, 'USD', CASE WHEN g % 2 = 0 THEN 'moonpay' ELSE 'banxa' END, 'jane@shop.io', 'redirected',
            'https://checkout.example/' || g, now() - make_interval(secs => $2 - g), CASE WHEN g = 10000 THEN $3 END
     FROM generate_series(1, $2) AS g`,
    [walletId, ATTEMPTS, reportedTx],
  );
  const ordered = await db.pool.query<{ id: string }>('SELECT id FROM payments WHERE wallet_id = $1 ORDER BY created_at, id', [walletId]);
  first = ordered.rows[0]!.id;
  reporter = ordered.rows[9999]!.id;
  latest = ordered.rows
    .slice(-20)
    .map((row) => row.id)
    .reverse();
  for (const [tx, logIndex] of [
    [reportedTx, 0],
    [timeRuleTx, 1],
  ] as const) {
    const deposit = await db.pool.query<{ id: string }>(
      `INSERT INTO deposits (chain_id, tx_hash, log_index, block_number, block_hash, wallet_id, from_address, amount, status, seen_at)
       VALUES (137, $1, $2, 10, $3, $4, $5, 25000000, 'seen', now()) RETURNING id::text`,
      [tx, logIndex, hex(32), walletId, hex(20)],
    );
    depositIds.push(deposit.rows[0]!.id);
  }
  await db.pool.query('ANALYZE payments');
  await db.pool.query('ANALYZE deposits');
}, 120_000);
afterAll(() => db.drop());

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Rows of `relation` the statement `run` sends read (returned or filtered out, every loop), by EXPLAIN ANALYZE of that statement. */
async function rowsTouched(pool: Pool, relation: string, run: () => Promise<unknown>): Promise<number> {
  const statements: QueryConfig[] = [];
  const spy = jest.spyOn(pool, 'query').mockImplementation(((config: QueryConfig) => {
    statements.push(config);
    return Promise.resolve({ rows: [], rowCount: 0 });
  }) as never);
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  expect(statements).toHaveLength(1);
  const { text, values } = statements[0]!;
  const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
  const walk = (node: PlanNode): number =>
    (node['Relation Name'] === relation
      ? ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) *
        (node['Actual Loops'] ?? 1)
      : 0) + (node.Plans ?? []).reduce((sum, child) => sum + walk(child), 0);
  return walk(rows[0]!['QUERY PLAN'][0].Plan);
}

describe('an order with 20,000 attempts', () => {
  it("the first attempt's receipt credits each deposit as before, and names the latest attempt", async () => {
    const receipt = await new PaymentReceiptRepository(db.pool).findReceipt(first);
    const ids = receipt!.attempts.map((attempt) => attempt.id);
    expect(ids).toContain(first);
    expect(ids).toContain(reporter);
    // The time rule's candidate for a deposit seen now, and the latest attempt, which the page names.
    expect(ids.at(-1)).toBe(latest[0]);
    expect(receipt!.attempts.find((attempt) => attempt.id === reporter)?.deliveredTxHash).toBe(reportedTx);
    expect(ids.length).toBeLessThan(10);
  });

  it('the receipt touches a bounded number of payments rows', async () => {
    const receipts = new PaymentReceiptRepository(db.pool);
    expect(await rowsTouched(db.pool, 'payments', () => receipts.findReceipt(first))).toBeLessThan(BOUND);
  });

  it('Check Payment Status lists the newest twenty and touches a bounded number of payments rows', async () => {
    const statuses = new PaymentStatusRepository(db.pool);
    const status = await statuses.findByIpnToken(ipnToken);
    expect(status!.payments.map((payment) => payment.id)).toEqual(latest);
    expect(await rowsTouched(db.pool, 'payments', () => statuses.findByIpnToken(ipnToken))).toBeLessThan(BOUND);
  });

  it("the chain watcher's attempts of each new deposit (its checkout-to-USDC time): the reporting one and the latest, a bounded read", async () => {
    const deposits = new DepositRepository(db.pool, 137);
    const [reported, timed] = await deposits.checkoutsOf(depositIds);
    expect(reported!.attempts.map((attempt) => attempt.id)).toContain(reporter);
    expect(timed!.attempts.map((attempt) => attempt.id)).toContain(latest[0]);
    expect(timed!.attempts.length).toBeLessThanOrEqual(21);
    expect(await rowsTouched(db.pool, 'payments', () => deposits.checkoutsOf(depositIds))).toBeLessThan(BOUND);
  });
});
