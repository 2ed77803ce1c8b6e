import { randomBytes, randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import {
  callbackJobId,
  enqueueDeliveries,
  enqueueSettlements,
  openCallbackQueue,
  openSettlementQueue,
  SETTLEMENT_JOB_NAME,
} from '@gateway/queue';
import { createTestRedis, type TestRedis } from '@gateway/testkit';
import { createTestDatabase, type TestDatabase } from '@gateway/app-testkit';
import { runGateway } from './support/run-cli';

let db: TestDatabase;
let redis: TestRedis;
const env = () => ({ DATABASE_URL: db.connectionString, DATABASE_SCHEMA: db.schema, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix });

beforeAll(async () => {
  db = await createTestDatabase('cli_story');
  redis = createTestRedis('cli-story');
});
afterAll(async () => {
  await db?.drop();
  await redis?.close();
});

const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;
const at = (minutes: number) => new Date(Date.UTC(2026, 5, 2, 9, 0, 0) + minutes * 60_000);

interface PaidWallet {
  walletId: string;
  temporaryAddress: string;
  payoutAddress: string;
  ipnToken: string;
  paymentId: string;
  depositId: string;
  depositTx: string;
  merchantTx: string;
  deliveryId: string;
}

/**
 * A wallet whose payment went the whole way, recorded as the apps record it (each row in the state
 * and at the time its app writes it): a checkout, the provider's status, the deposit, two payout legs
 * with their relayer transactions, and a callback answered 500 then 200.
 */
async function paidWallet(pool: Pool): Promise<PaidWallet> {
  const temporaryAddress = hex(20);
  const payoutAddress = hex(20);
  const ipnToken = randomBytes(24).toString('base64url');
  const walletId = (
    await pool.query<{ id: string }>(
      `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token, created_at)
       VALUES (nextval('wallet_hd_index_seq'), $1, $2, $3, $4, $5, $6, $7) RETURNING id::text`,
      [
        temporaryAddress,
        `test.${randomBytes(16).toString('hex')}`,
        payoutAddress,
        `https://shop.example/ipn/${randomBytes(4).toString('hex')}?order=7`,
        randomBytes(32),
        ipnToken,
        at(0),
      ],
    )
  ).rows[0]!.id;
  const paymentId = randomUUID();
  const depositTx = hex(32);
  await pool.query(
    `INSERT INTO payments (id, wallet_id, amount, currency, provider, email, status, checkout_url, created_at, checkout_served_at,
                           checkout_attempts, provider_status, provider_raw_status, provider_reference, provider_tx_hash,
                           provider_updated_at)
     VALUES ($1, $2, '25.00', 'USD', 'sandbox', 'buyer@example.com', 'redirected', 'https://sandbox.example/c/1', $3, $4, 1,
             'paid', 'COMPLETED', 'sb-991', $5, $6)`,
    [paymentId, walletId, at(1), at(1.2), depositTx, at(5)],
  );
  const depositId = (
    await pool.query<{ id: string }>(
      `INSERT INTO deposits (chain_id, tx_hash, log_index, block_number, block_hash, wallet_id, from_address, amount, status, seen_at,
                             final_at, forwarded_at)
       VALUES (137, $1, 3, 4711, $2, $3, $4, 24500000, 'forwarded', $5, $6, $7) RETURNING id::text`,
      [depositTx, hex(32), walletId, hex(20), at(6), at(6.5), at(7)],
    )
  ).rows[0]!.id;
  const legs: Array<[string, string, bigint, string]> = [
    ['merchant', payoutAddress, 24_255_000n, hex(32)],
    ['platform', hex(20), 245_000n, hex(32)],
  ];
  for (const [index, [leg, to, amount, txHash]] of legs.entries()) {
    const payoutId = (
      await pool.query<{ id: string }>(
        `INSERT INTO payouts (deposit_id, leg, from_address, to_address, amount, authorization_nonce, valid_before, signature, status,
                              tx_hash, block_number, created_at, confirmed_at)
         VALUES ($1, $2, $3, $4, $5, $6, 1780000000, $7, 'confirmed', $8, 4713, $9, $10) RETURNING id::text`,
        [depositId, leg, temporaryAddress, to, amount.toString(), hex(32), hex(65), txHash, at(6.6), at(6.9)],
      )
    ).rows[0]!.id;
    await pool.query(
      `INSERT INTO payout_transactions (payout_id, chain_id, relayer_address, relayer_nonce, tx_hash, raw_tx, gas_limit, max_fee_per_gas,
                                        max_priority_fee_per_gas, reason, status, created_at, sent_at)
       VALUES ($1, 137, $2, $3, $4, '0x02f8', 90000, 50000000000, 30000000000, 'initial', 'mined', $5, $5)`,
      [payoutId, hex(20), 40 + index, txHash, at(6.7)],
    );
  }
  const deliveryId = randomUUID();
  await pool.query(
    `INSERT INTO callback_deliveries (id, wallet_id, deposit_id, value_coin, value_forwarded_coin, fee_coin, txid_in, txid_out, status,
                                      attempt_count, created_at, delivered_at, next_attempt_at)
     VALUES ($1, $2, $3, 24500000, 24255000, 245000, $4, $5, 'delivered', 2, $6, $7, $7)`,
    [deliveryId, walletId, depositId, depositTx, legs[0]![3], at(7.1), at(8)],
  );
  await pool.query(
    `INSERT INTO callback_attempts (delivery_id, attempt_no, started_at, duration_ms, status_code, response_excerpt)
     VALUES ($1, 1, $2, 120, 500, 'oops'), ($1, 2, $3, 80, 200, '*ok*')`,
    [deliveryId, at(7.2), at(8)],
  );
  return { walletId, temporaryAddress, payoutAddress, ipnToken, paymentId, depositId, depositTx, merchantTx: legs[0]![3], deliveryId };
}

describe('gateway story', () => {
  let paid: PaidWallet;
  beforeAll(async () => {
    paid = await paidWallet(db.pool);
  });

  it('tells the whole story in order: created, checkout, provider status, deposit, payout legs, callback attempts', async () => {
    const run = await runGateway(['story', paid.ipnToken], env());
    expect([run.code, run.stderr]).toEqual([0, '']);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`wallet ${paid.temporaryAddress} (id ${paid.walletId})`);
    const expected = [
      [at(0), 'wallet', `created: temporary address ${paid.temporaryAddress}, payout ${paid.payoutAddress}, platform fee 100 bps`],
      [at(1), `payment ${paid.paymentId}`, 'created: 25.00 USD by sandbox, now redirected'],
      [at(1.2), `payment ${paid.paymentId}`, 'checkout served (1 attempt(s))'],
      [at(5), `payment ${paid.paymentId}`, `provider status paid (provider says COMPLETED, reference sb-991, tx ${paid.depositTx})`],
      [at(6), `deposit ${paid.depositId}`, `seen: 24.5 USDC from 0x`],
      [at(6.5), `deposit ${paid.depositId}`, 'final'],
      [at(6.6), 'payout', `planned for deposit ${paid.depositId}: 24.255 USDC to ${paid.payoutAddress}, now confirmed`],
      [at(6.6), 'payout', 'planned for deposit'],
      [at(6.7), 'payout', `initial transaction ${paid.merchantTx}`],
      [at(6.7), 'payout', 'initial transaction 0x'],
      [at(6.9), 'payout', `confirmed: tx ${paid.merchantTx} in block 4713`],
      [at(6.9), 'payout', 'confirmed: tx 0x'],
      [at(7), `deposit ${paid.depositId}`, 'forwarded'],
      [at(7.1), `callback ${paid.deliveryId}`, 'created for deposit'],
      [at(7.2), `callback ${paid.deliveryId}`, 'attempt 1: HTTP 500: "oops" (120 ms)'],
      [at(8), `callback ${paid.deliveryId}`, 'attempt 2: HTTP 200: "*ok*" (80 ms)'],
      [at(8), `callback ${paid.deliveryId}`, 'delivered'],
    ] as const;
    expect(lines.slice(1)).toHaveLength(expected.length);
    for (const [index, [time, subject, text]] of expected.entries()) {
      const line = lines[index + 1]!;
      expect([index, line.startsWith(`${time.toISOString()}  ${subject}`), line.includes(text)]).toEqual([index, true, true]);
    }
    expect(lines.find((line) => line.includes('created for deposit'))).toContain(
      'value 24.5 USDC, forwarded 24.255 USDC, fee 0.245 USDC, txid_out',
    );
  }, 60_000);

  it('finds the same wallet by every key an operator may hold, and answers --json with amounts in base units', async () => {
    const keys = [paid.paymentId, paid.depositTx, paid.merchantTx.toUpperCase().replace('0X', '0x'), paid.deliveryId, paid.depositId];
    for (const key of [...keys, paid.temporaryAddress, paid.payoutAddress]) {
      const run = await runGateway(['story', key, '--json'], env());
      expect([key, run.code, run.stderr]).toEqual([key, 0, '']);
      const story = JSON.parse(run.stdout) as {
        wallets: Array<{ wallet: { id: string }; deposits: Array<{ amount: string }>; payouts: unknown[]; events: unknown[] }>;
      };
      expect([key, story.wallets.map((wallet) => wallet.wallet.id)]).toEqual([key, [paid.walletId]]);
      expect(story.wallets[0]!.deposits[0]!.amount).toBe('24500000');
      expect(story.wallets[0]!.payouts).toHaveLength(2);
      expect(story.wallets[0]!.events).toHaveLength(17);
    }
  }, 120_000);

  it('says nothing matches (exit 1) and refuses what is no key at all (exit 2)', async () => {
    const unknown = await runGateway(['story', randomUUID()], env());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^gateway story: nothing in this gateway matches [0-9a-f-]{36} \(looked it up as id\)\n$/);
    const bad = await runGateway(['story', "x' OR 1=1"], env());
    expect([bad.code, bad.stdout]).toEqual([2, '']);
    expect((await runGateway(['story'], env())).code).toBe(2);
  }, 60_000);
});

describe('gateway callbacks resend', () => {
  it('makes a failed delivery pending with a new round and queues it now; refuses one that is not failed or unknown', async () => {
    const { walletId } = await paidWallet(db.pool);
    const id = randomUUID();
    await db.pool.query(
      `INSERT INTO callback_deliveries (id, wallet_id, value_coin, value_forwarded_coin, fee_coin, txid_in, txid_out, status,
                                        attempt_count, round_start_attempts, last_error)
       VALUES ($1, $2, 1000000, 990000, 10000, $3, $4, 'failed', 19, 0, 'HTTP 500')`,
      [id, walletId, hex(32), hex(32)],
    );
    const run = await runGateway(['callbacks', 'resend', id, '--json'], env());
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(JSON.parse(run.stdout)).toEqual({ deliveryId: id, status: 'pending', nextAttemptAt: expect.any(String), queuedBy: 'queued' });
    const { rows } = await db.pool.query('SELECT status, round_start_attempts, resend_count FROM callback_deliveries WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ status: 'pending', round_start_attempts: 19, resend_count: 1 });
    const queue = openCallbackQueue({ url: redis.url, prefix: redis.prefix });
    try {
      expect(await queue.getJobState(callbackJobId(id))).toBe('waiting');
    } finally {
      await queue.close();
    }

    // Redis out of reach: pending all the same, and the callback-worker's reconciler queues it.
    await db.pool.query(`UPDATE callback_deliveries SET status = 'failed' WHERE id = $1`, [id]);
    const noRedis = await runGateway(['callbacks', 'resend', id], { ...env(), REDIS_URL: 'redis://127.0.0.1:1' });
    expect([noRedis.code, noRedis.stderr]).toEqual([0, '']);
    expect(noRedis.stdout).toMatch(
      new RegExp(`^delivery ${id} is pending again; Redis did not take the job \\(.+\\), the worker's reconciler will queue it\n$`),
    );

    const again = await runGateway(['callbacks', 'resend', id], env());
    expect([again.code, again.stderr]).toEqual([
      1,
      `gateway callbacks resend: delivery ${id} is pending; only failed deliveries can be resent\n`,
    ]);
    const unknown = randomUUID();
    expect((await runGateway(['callbacks', 'resend', unknown], env())).stderr).toBe(
      `gateway callbacks resend: no callback delivery ${unknown}\n`,
    );
    expect((await runGateway(['callbacks', 'resend', 'not-a-uuid'], env())).code).toBe(2);
  }, 60_000);
});

describe('gateway queues', () => {
  it("counts each queue's jobs by state and names the oldest live one", async () => {
    // A prefix of its own: the jobs here are all there is.
    const own = createTestRedis('cli-queues');
    const settings = { url: own.url, prefix: own.prefix };
    const settlement = openSettlementQueue(settings);
    const callbacks = openCallbackQueue(settings);
    try {
      await enqueueSettlements(settlement, ['901']);
      await settlement.add(SETTLEMENT_JOB_NAME, { depositId: '902' }, { jobId: 'deposit-902', delay: 3_600_000 });
      await enqueueDeliveries(callbacks, [randomUUID()]);
      const queuesEnv = { REDIS_URL: own.url, REDIS_PREFIX: own.prefix };
      const run = await runGateway(['queues', '--json'], queuesEnv);
      expect([run.code, run.stderr]).toEqual([0, '']);
      const report = JSON.parse(run.stdout) as {
        queues: Array<{ queue: string; counts: Record<string, number>; oldest: { id: string; state: string; data: unknown } | null }>;
      };
      expect(report.queues.map((queue) => queue.queue)).toEqual(['settlement', 'callbacks', 'provider-status']);
      const [settle, callback, status] = report.queues;
      expect(settle!.counts).toMatchObject({ waiting: 1, delayed: 1, active: 0 });
      expect(settle!.oldest).toMatchObject({ id: 'deposit-901', state: 'waiting', data: { depositId: '901' } });
      expect(callback!.counts).toMatchObject({ waiting: 1, delayed: 0 });
      expect(status).toMatchObject({ counts: { waiting: 0, delayed: 0, active: 0 }, oldest: null });

      const text = await runGateway(['queues'], queuesEnv);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(
        /^settlement +waiting 1, delayed 1\n +oldest: job deposit-901 \(waiting, added .+\) \{"depositId":"901"\}\n/,
      );
      expect(text.stdout).toMatch(/\nprovider-status +empty\n$/);
    } finally {
      await settlement.close();
      await callbacks.close();
      await own.close();
    }
  }, 60_000);
});
