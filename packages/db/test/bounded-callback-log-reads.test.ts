import { randomBytes } from 'node:crypto';
import type { Pool, QueryConfig } from 'pg';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { MerchantCallbackRepository } from '../src/repositories/merchant-callback-repository';

// Check Payment Status's callback log reads the newest few callbacks of a wallet and the newest few
// attempts of each, whatever the wallet and the table hold: through callback_deliveries_wallet_created_idx
// (migration 032) and the attempts' (delivery_id, attempt_no) key, read backwards and cut at the limits.
// Measured with EXPLAIN ANALYZE (rows returned and filtered out at every node over a table), never with a clock.

// Other wallets' callbacks, 10 each: a gateway's table is mostly other wallets'.
const OTHER_WALLETS = 2_000;
const DELIVERIES = 100;
/** Attempts of each of the wallet's newest callbacks (EXPLAIN gives rows per loop, rounded: each loop must find its five). */
const ATTEMPTS = 200;
const LIMITS = { deliveries: 10, attempts: 5, excerptChars: 200 };

let db: TestDatabase;
let ipnToken: string;
let newest: string;
const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;

async function walletWithDeliveries(count: number): Promise<{ id: string; ipnToken: string }> {
  const token = randomBytes(24).toString('base64url');
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
     VALUES (nextval('wallet_hd_index_seq'), $1, 'sealed', $2, $3, $4, $5) RETURNING id::text`,
    [hex(20), hex(20), `https://shop.io/ipn?order=${token}`, randomBytes(32), token],
  );
  const id = rows[0]!.id;
  // One a minute, the newest now.
  await db.pool.query(
    `INSERT INTO callback_deliveries (id, wallet_id, value_coin, value_forwarded_coin, fee_coin, txid_in, txid_out, status, created_at)
     SELECT gen_random_uuid(), $1, 1000000, 990000, 10000, $3, $3, 'delivered', now() - make_interval(mins => $2 - g)
     FROM generate_series(1, $2) AS g`,
    [id, count, hex(32)],
  );
  return { id, ipnToken: token };
}

beforeAll(async () => {
  db = await createTestDatabase('bounded_callback_log_reads');
  await db.pool.query(
    `WITH others AS (
       INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
       SELECT nextval('wallet_hd_index_seq'), '0x' || md5('in' || g) || '00000000', 'sealed', '0x' || md5('out' || g) || '00000000',
              'https://shop.io/ipn?order=other-' || g, sha256(('other' || g)::bytea), md5('token' || g)
       FROM generate_series(1, $1) AS g RETURNING id)
     INSERT INTO callback_deliveries (id, wallet_id, value_coin, value_forwarded_coin, fee_coin, txid_in, txid_out, status)
     SELECT gen_random_uuid(), others.id, 1000000, 990000, 10000, $2, $2, 'delivered' FROM others, generate_series(1, 10)`,
    [OTHER_WALLETS, hex(32)],
  );
  const wallet = await walletWithDeliveries(DELIVERIES);
  ipnToken = wallet.ipnToken;
  const { rows } = await db.pool.query<{ id: string }>(
    'SELECT id::text FROM callback_deliveries WHERE wallet_id = $1 ORDER BY created_at DESC LIMIT $2',
    [wallet.id, LIMITS.deliveries],
  );
  newest = rows[0]!.id;
  // Callbacks retried and resent for weeks.
  await db.pool.query(
    `INSERT INTO callback_attempts (delivery_id, attempt_no, started_at, duration_ms, status_code, error_code, response_excerpt)
     SELECT d, g, now() - make_interval(mins => $2 - g), 30, 503, 'http_error', 'busy'
     FROM unnest($1::uuid[]) AS d, generate_series(1, $2) AS g`,
    [rows.map((row) => row.id), ATTEMPTS],
  );
  await db.pool.query('ANALYZE callback_deliveries');
  await db.pool.query('ANALYZE callback_attempts');
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

/** Rows of each relation the one statement `run` sends reads (returned or filtered out, every loop), by EXPLAIN ANALYZE of it. */
async function rowsTouched(pool: Pool, run: () => Promise<unknown>): Promise<Record<string, number>> {
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
  const touched: Record<string, number> = {};
  const walk = (node: PlanNode): void => {
    const relation = node['Relation Name'];
    if (relation !== undefined) {
      const rowsRead = (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
      touched[relation] = (touched[relation] ?? 0) + rowsRead * (node['Actual Loops'] ?? 1);
    }
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(rows[0]!['QUERY PLAN'][0].Plan);
  return touched;
}

it('lists the newest callbacks and attempts, with the totals', async () => {
  const log = await new MerchantCallbackRepository(db.pool).findLog(ipnToken, LIMITS);
  expect(log!.deliveryCount).toBe(DELIVERIES);
  expect(log!.deliveries).toHaveLength(LIMITS.deliveries);
  expect(log!.deliveries[0]!.id).toBe(newest);
  expect(log!.deliveries[0]!.attempts.map((attempt) => attempt.attemptNo)).toEqual([200, 199, 198, 197, 196]);
});

it("touches a bounded number of attempts, and of callbacks the wallet's own only (counted, and maybe sorted)", async () => {
  const callbacks = new MerchantCallbackRepository(db.pool);
  const touched = await rowsTouched(db.pool, () => callbacks.findLog(ipnToken, LIMITS));
  expect(touched.callback_attempts).toBeLessThanOrEqual(LIMITS.deliveries * LIMITS.attempts);
  // Never another wallet's: a scan of the table would read OTHER_WALLETS × 10 more. Its own a wallet has as many as it had
  // deposits forwarded, each a payment above the dust threshold: the count reads them, and so may the page.
  expect(touched.callback_deliveries).toBeLessThanOrEqual(2 * DELIVERIES);
});
