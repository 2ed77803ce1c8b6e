import { randomBytes, randomUUID } from 'node:crypto';
import { CheckoutMeasureRepository } from '../src/repositories/checkout-measure-repository';
import { insertWallet } from './support/deposit-rows';
import { createTestDatabase, type TestDatabase } from './support/test-database';

// The ranking's measured conversion, read from seeded payments and deposits: per provider over the
// window, the attempts given a checkout, those whose order received a counted deposit credited to
// them (attemptThatPaid), and the median minutes from the checkout to the first one. Run as
// payment-redirect's role, which reads it on every page load (cached); the plan shows the window's
// payments read by migration 037's index.

let db: TestDatabase;
const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;
const NOW = Date.now();
const minutesAgo = (minutes: number) => new Date(NOW - minutes * 60_000);
const DAY = 24 * 60;

async function attempt(
  walletId: string,
  provider: string,
  createdAt: Date,
  options: { status?: 'redirected' | 'checkout_failed'; deliveredTx?: string } = {},
): Promise<string> {
  const id = randomUUID();
  const status = options.status ?? 'redirected';
  await db.pool.query(
    `INSERT INTO payments (id, wallet_id, amount, currency, provider, email, status, checkout_url, checkout_error, created_at, provider_tx_hash)
     VALUES ($1, $2, '25.00', 'USD', $3, 'buyer@example.com', $4, $5, $6, $7, $8)`,
    [
      id,
      walletId,
      provider,
      status,
      status === 'redirected' ? 'https://checkout.example/c' : null,
      status === 'checkout_failed' ? 'refused: test' : null,
      createdAt,
      options.deliveredTx ?? null,
    ],
  );
  return id;
}

let block = 1;
async function deposit(walletId: string, seenAt: Date, status = 'final', txHash = hex(32)): Promise<string> {
  await db.pool.query(
    `INSERT INTO deposits (chain_id, tx_hash, log_index, block_number, block_hash, wallet_id, from_address, amount, status, seen_at, final_at)
     VALUES (137, $1, 0, $2, $3, $4, $5, 25000000, $6, $7, CASE WHEN $6 IN ('seen', 'orphaned') THEN NULL ELSE $7::timestamptz END)`,
    [txHash, block++, hex(32), walletId, hex(20), status, seenAt],
  );
  return txHash;
}

const order = async () => (await insertWallet(db.pool)).id;

beforeAll(async () => {
  db = await createTestDatabase('checkout_measures');
  // MoonPay: four attempts in the window, three reached USDC after 6, 10 and 30 minutes.
  for (const [started, minutes] of [
    [100, 6],
    [200, 10],
    [300, 30],
  ] as const) {
    const wallet = await order();
    await attempt(wallet, 'moonpay', minutesAgo(started));
    await deposit(wallet, minutesAgo(started - minutes));
    // A later deposit into the same order does not change its time.
    await deposit(wallet, minutesAgo(started - minutes - 5));
  }
  await attempt(await order(), 'moonpay', minutesAgo(400));
  // Declined at Transak, paid at Banxa on the second chance: the USDC is Banxa's.
  const retried = await order();
  await attempt(retried, 'transak', minutesAgo(500));
  await attempt(retried, 'banxa', minutesAgo(490));
  await deposit(retried, minutesAgo(470));
  // Transak reported delivering the transaction, though a later Banxa attempt exists: Transak's, after 4 minutes.
  const reported = await order();
  const tx = hex(32);
  await attempt(reported, 'transak', minutesAgo(600), { deliveredTx: tx });
  await attempt(reported, 'banxa', minutesAgo(599));
  await deposit(reported, minutesAgo(596), 'forwarded', tx);
  // Not counted: an unfinal and an orphaned deposit; a checkout that failed; an attempt before the window.
  const unfinal = await order();
  await attempt(unfinal, 'banxa', minutesAgo(700));
  await deposit(unfinal, minutesAgo(690), 'seen');
  await deposit(unfinal, minutesAgo(689), 'orphaned');
  await attempt(await order(), 'banxa', minutesAgo(800), { status: 'checkout_failed' });
  const old = await order();
  await attempt(old, 'mercuryo', minutesAgo(31 * DAY));
  await deposit(old, minutesAgo(31 * DAY - 3));
  // Mercuryo inside a 30-day window but outside a one-day window.
  const weekOld = await order();
  await attempt(weekOld, 'mercuryo', minutesAgo(7 * DAY));
  await deposit(weekOld, minutesAgo(7 * DAY - 12));
});

afterAll(async () => {
  await db?.drop();
});

describe('CheckoutMeasureRepository.measure', () => {
  it("counts each provider's attempts in the window, those credited USDC, and the median minutes to it", async () => {
    const measured = await new CheckoutMeasureRepository(db.appPool('payment-redirect')).measure(30);
    expect(Object.fromEntries(measured)).toEqual({
      moonpay: { attempts: 4, reachedUsdc: 3, minutesToUsdc: 10 },
      transak: { attempts: 2, reachedUsdc: 1, minutesToUsdc: 4 },
      banxa: { attempts: 3, reachedUsdc: 1, minutesToUsdc: 20 },
      mercuryo: { attempts: 1, reachedUsdc: 1, minutesToUsdc: 12 },
    });
  });

  it('measures only the window asked for', async () => {
    const measured = await new CheckoutMeasureRepository(db.pool).measure(1);
    expect(measured.has('mercuryo')).toBe(false);
    expect(measured.get('moonpay')).toEqual({ attempts: 4, reachedUsdc: 3, minutesToUsdc: 10 });
  });

  it("finds the window's payments by migration 037's index", async () => {
    const client = await db.pool.connect();
    try {
      // A handful of rows would be scanned whatever the indexes; the planner is told not to, to see which index serves.
      await client.query('SET enable_seqscan = off');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT wallet_id, min(created_at) FROM payments
         WHERE status = 'redirected' AND created_at >= now() - make_interval(days => 30) GROUP BY wallet_id`,
      );
      expect(rows.map((row) => row['QUERY PLAN']).join('\n')).toContain('payments_checkout_created_idx');
    } finally {
      client.release();
    }
  });
});
