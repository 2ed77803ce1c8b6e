import type { FastifyInstance } from 'fastify';
import { seedPayment, sqlExpression } from '@gateway/app-testkit';
import { USDC, settlementFixtureForFile, type SettlementFixture, type TestWallet } from '../support/settlement-fixture';

// Each forwarded deposit is counted under its order's state as its callback delivery was written
// with it, and the provider of the attempt the order is judged by: what the "underpaid share per
// provider" alert (infra/prometheus/rules/settlement.yml) divides.

jest.setTimeout(90_000);

let fixture: SettlementFixture;
settlementFixtureForFile('settlement_order_deposits', (started) => (fixture = started));

/** The app's settlement_order_deposits_total, as `state provider` → count (series never incremented left out). */
async function orderDeposits(app: FastifyInstance): Promise<Record<string, number>> {
  const body = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const counts: Record<string, number> = {};
  for (const [, labels, count] of body.matchAll(/^settlement_order_deposits_total\{([^}]*)\} (\d+)$/gm)) {
    const label = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(labels!)?.[1];
    if (Number(count) > 0) counts[`${label('state')} ${label('provider')}`] = Number(count);
  }
  return counts;
}

async function orderStateOf(depositId: string): Promise<{ order_state: string | null; order_total_coin: string }> {
  const { rows } = await fixture.db.pool.query<{ order_state: string | null; order_total_coin: string }>(
    'SELECT order_state, order_total_coin::text FROM callback_deliveries WHERE deposit_id = $1',
    [depositId],
  );
  return rows[0]!;
}

/** An attempt on the wallet whose provider quoted `usdc`, judged within 1 %, its window open for a day. */
async function quotedAttempt(wallet: TestWallet, provider: string, usdc: bigint): Promise<void> {
  await seedPayment(fixture.db.pool, {
    walletId: wallet.id,
    amount: '10.00',
    provider,
    expectation: { amountUsd: '10.00', usdc, basis: 'quote', toleranceBps: 100, windowEndsAt: sqlExpression("now() + interval '1 day'") },
  });
}

it("counts each forwarded deposit under its order's state and its attempt's provider, and none without an expectation", async () => {
  const app = await fixture.startApp();
  const order = await fixture.createWallet();
  await quotedAttempt(order, 'moonpay', 10n * USDC);

  const first = await fixture.depositPaidOut(order, 4n * USDC);
  expect(await orderStateOf(first.id)).toEqual({ order_state: 'underpaid', order_total_coin: '4000000' });
  expect(await orderDeposits(app)).toEqual({ 'underpaid moonpay': 1 });

  // The rest, into the same wallet: the order is whole, and that deposit counts as paid.
  const rest = await fixture.depositPaidOut(order, 6n * USDC);
  expect(await orderStateOf(rest.id)).toEqual({ order_state: 'paid', order_total_coin: '10000000' });
  expect(await orderDeposits(app)).toEqual({ 'underpaid moonpay': 1, 'paid moonpay': 1 });

  const over = await fixture.createWallet();
  await quotedAttempt(over, 'transak', 2n * USDC);
  await fixture.depositPaidOut(over, 3n * USDC);

  // Paid without Process Payment (or before orders had an expectation): nothing to judge it by.
  const unjudged = await fixture.createWallet();
  const plain = await fixture.depositPaidOut(unjudged, 2n * USDC);
  expect(await orderStateOf(plain.id)).toEqual({ order_state: null, order_total_coin: '2000000' });
  expect(await orderDeposits(app)).toEqual({ 'underpaid moonpay': 1, 'paid moonpay': 1, 'overpaid transak': 1, 'none none': 1 });
});
