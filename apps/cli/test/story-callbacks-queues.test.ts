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
import {
  createTestDatabase,
  seedDelivery,
  seedDeposit,
  seedPayment,
  seedPayout,
  seedWallet,
  type PayoutSeed,
  type TestDatabase,
  runGateway,
} from '@gateway/app-testkit';

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
  const { id: walletId } = await seedWallet(pool, {
    polygonAddress: temporaryAddress,
    payoutAddress,
    callbackUrl: `https://shop.example/ipn/${randomBytes(4).toString('hex')}?order=7`,
    ipnToken,
    createdAt: at(0),
  });
  const depositTx = hex(32);
  const paymentId = await seedPayment(pool, {
    walletId,
    amount: '25.00',
    status: 'redirected',
    checkoutUrl: 'https://sandbox.example/c/1',
    createdAt: at(1),
    checkoutServedAt: at(1.2),
    checkoutAttempts: 1,
    providerStatus: 'paid',
    providerRawStatus: 'COMPLETED',
    providerReference: 'sb-991',
    providerTxHash: depositTx,
    providerUpdatedAt: at(5),
  });
  const { id: depositId } = await seedDeposit(pool, {
    txHash: depositTx,
    logIndex: 3,
    blockNumber: 4711,
    walletId,
    amount: 24_500_000n,
    status: 'forwarded',
    seenAt: at(6),
    finalAt: at(6.5),
    forwardedAt: at(7),
  });
  const legs: Array<[PayoutSeed['leg'], string, bigint, string]> = [
    ['merchant', payoutAddress, 24_255_000n, hex(32)],
    ['platform', hex(20), 245_000n, hex(32)],
  ];
  for (const [index, [leg, to, amount, txHash]] of legs.entries()) {
    const { id: payoutId } = await seedPayout(pool, {
      depositId,
      leg,
      fromAddress: temporaryAddress,
      toAddress: to,
      amount,
      validBefore: 1780000000,
      signature: hex(65),
      status: 'confirmed',
      txHash,
      blockNumber: 4713,
      createdAt: at(6.6),
      confirmedAt: at(6.9),
    });
    await pool.query(
      `INSERT INTO payout_transactions (payout_id, chain_id, relayer_address, relayer_nonce, tx_hash, raw_tx, gas_limit, max_fee_per_gas,
                                        max_priority_fee_per_gas, reason, status, created_at, sent_at)
       VALUES ($1, 137, $2, $3, $4, '0x02f8', 90000, 50000000000, 30000000000, 'initial', 'mined', $5, $5)`,
      [payoutId, hex(20), 40 + index, txHash, at(6.7)],
    );
  }
  const deliveryId = await seedDelivery(pool, {
    walletId,
    depositId,
    valueCoin: 24_500_000n,
    valueForwardedCoin: 24_255_000n,
    feeCoin: 245_000n,
    txidIn: depositTx,
    txidOut: legs[0]![3],
    status: 'delivered',
    attemptCount: 2,
    createdAt: at(7.1),
    deliveredAt: at(8),
    nextAttemptAt: at(8),
  });
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
    // Then where the order stands (its payment recorded no expectation: the total alone; story-order.test.ts has the rest).
    expect(lines.slice(1)).toHaveLength(expected.length + 1);
    for (const [index, [time, subject, text]] of expected.entries()) {
      const line = lines[index + 1]!;
      expect([index, line.startsWith(`${time.toISOString()}  ${subject}`), line.includes(text)]).toEqual([index, true, true]);
    }
    expect(lines.at(-1)).toMatch(/^order now: not judged: 24\.5 USDC arrived; no payment attempt recorded what the order should bring/);
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

  it("tells a declined payment's reason and the kind of it", async () => {
    const { id: walletId } = await seedWallet(db.pool, {
      polygonAddress: hex(20),
      payoutAddress: hex(20),
      callbackUrl: `https://shop.example/ipn/${randomBytes(4).toString('hex')}?order=8`,
      ipnToken: randomBytes(24).toString('base64url'),
      createdAt: at(0),
    });
    const paymentId = await seedPayment(db.pool, {
      walletId,
      provider: 'moonpay',
      createdAt: at(1),
      providerStatus: 'declined',
      providerRawStatus: 'failed',
      providerReason: 'payment_authorization_declined',
      providerDeclineKind: 'card_refused',
      providerReference: 'mp-17',
      providerUpdatedAt: at(2),
    });
    const run = await runGateway(['story', paymentId], env());
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toContain(
      `${at(2).toISOString()}  payment ${paymentId}  provider status declined (provider says failed, reason payment_authorization_declined, ` +
        'kind card_refused, reference mp-17)',
    );
  }, 60_000);

  it('says nothing matches (exit 1) and refuses what is no key at all (exit 2)', async () => {
    const unknown = await runGateway(['story', randomUUID()], env());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^gateway story: nothing in this gateway matches [0-9a-f-]{36} \(looked it up as id\)\n$/);
    const bad = await runGateway(['story', "x' OR 1=1"], env());
    expect([bad.code, bad.stdout]).toEqual([2, '']);
    expect((await runGateway(['story'], env())).code).toBe(2);
  }, 60_000);
});

/** A delivery the merchant refused (a 400 twice, the short schedule here), as the callback-worker records it. */
async function refusedDelivery(pool: Pool, walletId: string, createdAt: Date): Promise<string> {
  const id = await seedDelivery(pool, {
    walletId,
    status: 'refused',
    attemptCount: 2,
    createdAt,
    lastError: 'shop.example answered 400: refused 2 time(s) in a row',
  });
  await pool.query(
    `INSERT INTO callback_attempts (delivery_id, attempt_no, started_at, duration_ms, status_code, error_code, response_excerpt)
     VALUES ($1, 1, $2, 40, 400, 'http_error', 'Order already paid'), ($1, 2, $3, 30, 400, 'http_error', 'Order already paid')`,
    [id, new Date(createdAt.getTime() + 30_000), new Date(createdAt.getTime() + 60_000)],
  );
  return id;
}

describe('a callback the merchant refused', () => {
  it('ends its story with the refusal and the answer that ended it, and how to send it again', async () => {
    const { walletId, ipnToken } = await paidWallet(db.pool);
    const id = await refusedDelivery(db.pool, walletId, at(30));
    const run = await runGateway(['story', ipnToken], env());
    expect([run.code, run.stderr]).toEqual([0, '']);
    const lines = run.stdout
      .trimEnd()
      .split('\n')
      .filter((line) => line.includes(`callback ${id}`));
    expect(lines.map((line) => line.slice(line.indexOf(id) + id.length + 2))).toEqual([
      expect.stringMatching(/^created for deposit null: .*; now refused after 2 attempt\(s\)$/),
      'attempt 1: HTTP 400: "Order already paid" (40 ms)',
      'attempt 2: HTTP 400: "Order already paid" (30 ms)',
      'refused by the merchant (a 4xx other than 408, 425 and 429, after the short retry schedule): HTTP 400: "Order already paid"; ' +
        `\`gateway callbacks resend ${id}\` sends it again`,
    ]);
    expect(lines.at(-1)).toMatch(new RegExp(`^${at(31).toISOString()}  `));
  }, 60_000);

  it('is listed with the failed ones, newest first, or alone with --status refused', async () => {
    const { walletId } = await paidWallet(db.pool);
    const refused = await refusedDelivery(db.pool, walletId, at(60));
    const failed = await seedDelivery(db.pool, { walletId, status: 'failed', attemptCount: 19, createdAt: at(50), lastError: 'HTTP 503' });

    const both = await runGateway(['callbacks', 'list', '--json'], env());
    expect([both.code, both.stderr]).toEqual([0, '']);
    const listed = (JSON.parse(both.stdout) as Array<{ id: string; status: string }>).map((d) => [d.id, d.status]);
    expect(listed.filter(([id]) => id === refused || id === failed)).toEqual([
      [refused, 'refused'],
      [failed, 'failed'],
    ]);

    const onlyRefused = await runGateway(['callbacks', 'list', '--status', 'refused', '--limit', '1000'], env());
    expect([onlyRefused.code, onlyRefused.stderr]).toEqual([0, '']);
    const line = onlyRefused.stdout.split('\n').find((text) => text.includes(refused));
    expect(line).toMatch(
      new RegExp(
        `^${at(61).toISOString()}  refused  ${refused}  https://shop\\.example/.+  2 attempt\\(s\\), last: HTTP 400: "Order already paid"$`,
      ),
    );
    expect(onlyRefused.stdout).not.toContain(failed);

    expect((await runGateway(['callbacks', 'list', '--status', 'delivered'], env())).code).toBe(2);
    expect((await runGateway(['callbacks', 'list', '--limit', '0'], env())).code).toBe(2);
  }, 60_000);
});

describe('gateway callbacks resend', () => {
  it('makes a failed delivery pending with a new round and queues it now; refuses one that is not failed or unknown', async () => {
    const { walletId } = await paidWallet(db.pool);
    const id = await seedDelivery(db.pool, {
      walletId,
      valueCoin: 1_000_000n,
      valueForwardedCoin: 990_000n,
      feeCoin: 10_000n,
      status: 'failed',
      attemptCount: 19,
      roundStartAttempts: 0,
      lastError: 'HTTP 500',
    });
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
      `gateway callbacks resend: delivery ${id} is pending; only failed or refused deliveries can be resent\n`,
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
      expect(report.queues.map((queue) => queue.queue)).toEqual(['settlement', 'callbacks', 'provider-status', 'recovery-emails']);
      const [settle, callback, status, recovery] = report.queues;
      expect(settle!.counts).toMatchObject({ waiting: 1, delayed: 1, active: 0 });
      expect(settle!.oldest).toMatchObject({ id: 'deposit-901', state: 'waiting', data: { depositId: '901' } });
      expect(callback!.counts).toMatchObject({ waiting: 1, delayed: 0 });
      expect(status).toMatchObject({ counts: { waiting: 0, delayed: 0, active: 0 }, oldest: null });
      expect(recovery).toMatchObject({ counts: { waiting: 0, delayed: 0, active: 0 }, oldest: null });

      const text = await runGateway(['queues'], queuesEnv);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(
        /^settlement +waiting 1, delayed 1\n +oldest: job deposit-901 \(waiting, added .+\) \{"depositId":"901"\}\n/,
      );
      expect(text.stdout).toMatch(/\nprovider-status +empty\nrecovery-emails +empty\n$/);
    } finally {
      await settlement.close();
      await callbacks.close();
      await own.close();
    }
  }, 60_000);
});
