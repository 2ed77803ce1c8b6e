import { randomUUID } from 'node:crypto';
import { createTestDatabase, seedDeposit, seedPayment, seedWallet, type TestDatabase, runGateway } from '@gateway/app-testkit';
import type { RecordedOrderFacts } from '@gateway/db/cli';
import { orderLines, storyOrder } from '../src/commands/story';

// `gateway story` ends with where the wallet's order stands, judged as its callbacks and Check
// Payment Status judge it: the state, the reason sentence, and the figures it was judged by.

const attempt = { paymentId: randomUUID(), provider: 'moonpay', amount: '45.00', currency: 'EUR', amountUsd: '49.50' };
const windowEndsAt = new Date('2026-06-02T12:00:00Z');
const judgedFacts = (amounts: Array<[bigint, string]>, walletToleranceBps: number | null = null): RecordedOrderFacts => ({
  expectation: { usdc: 49_000_000n, basis: 'quote', toleranceBps: 100, windowEndsAt },
  attempt,
  walletToleranceBps,
  deposits: amounts.map(([amount, seenAt]) => ({ amount, seenAt: new Date(seenAt) })),
});

describe('the order in the story', () => {
  it('underpaid: the state and the reason, then the attempt and every figure it was judged by', () => {
    const order = storyOrder(judgedFacts([[30_000_000n, '2026-06-02T10:00:00Z']]));
    expect(order.judged).toMatchObject({ state: 'underpaid', expectedUsdc: 49_000_000n, missingUsdc: 19_000_000n, toleranceBps: 100 });
    expect(orderLines(order)).toEqual([
      "order now: underpaid: 30 USDC arrived, 19 short of 49 USDC expected (the provider's quote), more than the 100 basis points allowed",
      `  judged by payment ${attempt.paymentId} (moonpay, 45.00 EUR = 49.50 USD): expected 49 USDC (quote), tolerance 100 bps, window ` +
        'ends 2026-06-02T12:00:00.000Z; total 30 USDC, missing 19 USDC, excess 0 USDC, late 0 USDC',
    ]);
  });

  it("late, and judged with the merchant's narrower tolerance", () => {
    const late = storyOrder(
      judgedFacts([
        [20_000_000n, '2026-06-02T11:00:00Z'],
        [29_000_000n, '2026-06-02T13:00:00Z'],
      ]),
    );
    expect(orderLines(late)[0]).toMatch(/^order now: late: 29 of 49 USDC arrived after the order's window closed/);
    expect(orderLines(late)[1]).toMatch(/total 49 USDC, missing 0 USDC, excess 0 USDC, late 29 USDC$/);
    const narrowed = storyOrder(judgedFacts([[48_700_000n, '2026-06-02T10:00:00Z']], 50));
    expect(narrowed.judged).toMatchObject({ state: 'underpaid', toleranceBps: 50 });
    expect(storyOrder(judgedFacts([[48_700_000n, '2026-06-02T10:00:00Z']])).judged).toMatchObject({ state: 'paid', toleranceBps: 100 });
  });

  it('no attempt recorded an expectation: the total alone, said to be unjudged', () => {
    const order = storyOrder({ walletToleranceBps: null, deposits: [{ amount: 2_500_000n, seenAt: windowEndsAt }] });
    expect(order).toEqual({ totalUsdc: 2_500_000n, reason: expect.any(String), judged: null });
    expect(orderLines(order)).toEqual([
      'order now: not judged: 2.5 USDC arrived; no payment attempt recorded what the order should bring (paid without Process ' +
        'Payment, or before the gateway recorded orders), so it is not judged',
    ]);
  });
});

describe('gateway story, on a recorded order', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('cli_story_order');
  });
  afterAll(() => db?.drop());

  it('ends the story with the order read from PostgreSQL, in text and --json (amounts in base units)', async () => {
    const wallet = await seedWallet(db.pool, { createdAt: '2026-06-02T09:00:00Z' });
    const paymentId = await seedPayment(db.pool, {
      walletId: wallet.id,
      amount: '45.00',
      currency: 'EUR',
      provider: 'moonpay',
      createdAt: '2026-06-02T09:01:00Z',
      expectation: { amountUsd: '49.50', usdc: 49_000_000n, basis: 'estimate', toleranceBps: 250, windowEndsAt },
    });
    await seedDeposit(db.pool, { walletId: wallet.id, amount: 30_000_000n, status: 'forwarded', seenAt: '2026-06-02T09:10:00Z' });
    // Not final yet: not counted.
    await seedDeposit(db.pool, { walletId: wallet.id, amount: 19_000_000n, status: 'seen', seenAt: '2026-06-02T09:20:00Z', logIndex: 1 });
    const env = { DATABASE_URL: db.connectionString, DATABASE_SCHEMA: db.schema };

    const text = await runGateway(['story', wallet.ipnToken], env);
    expect([text.code, text.stderr]).toEqual([0, '']);
    expect(text.stdout.trimEnd().split('\n').slice(-2)).toEqual([
      'order now: underpaid: 30 USDC arrived, 19 short of 49 USDC expected (an estimate from its documented fees), more than the 250 ' +
        'basis points allowed',
      `  judged by payment ${paymentId} (moonpay, 45.00 EUR = 49.50 USD): expected 49 USDC (estimate), tolerance 250 bps, window ends ` +
        '2026-06-02T12:00:00.000Z; total 30 USDC, missing 19 USDC, excess 0 USDC, late 0 USDC',
    ]);

    const json = await runGateway(['story', wallet.ipnToken, '--json'], env);
    expect(JSON.parse(json.stdout).wallets[0].order).toEqual({
      totalUsdc: '30000000',
      reason: expect.stringMatching(/^30 USDC arrived, 19 short of 49 USDC expected/),
      judged: {
        state: 'underpaid',
        expectedUsdc: '49000000',
        basis: 'estimate',
        missingUsdc: '19000000',
        excessUsdc: '0',
        lateUsdc: '0',
        toleranceBps: 250,
        windowEndsAt: '2026-06-02T12:00:00.000Z',
        attempt: { paymentId, provider: 'moonpay', amount: '45.00', currency: 'EUR', amountUsd: '49.50' },
      },
    });
  }, 60_000);
});
