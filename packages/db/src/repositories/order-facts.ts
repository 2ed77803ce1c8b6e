import type { Pool, PoolClient } from 'pg';
import { DEPOSIT_STATUSES_COUNTED_FOR_ORDER, type ExpectationBasis, type OrderFacts, sqlStatusList } from '@gateway/domain';

/** The attempt whose expectation the order is judged by, as the ledger and the receipt name it. */
export interface OrderAttempt {
  paymentId: string;
  provider: string;
  /** The order in its currency, a decimal string, and its USD value at the attempt's rate. */
  amount: string;
  currency: string;
  amountUsd: string;
}

export interface RecordedOrderFacts extends OrderFacts {
  attempt?: OrderAttempt;
}

/** The columns ORDER_FACTS_SELECT gives, as pg reads them. */
export interface OrderFactsRow {
  payment_id: string | null;
  provider: string | null;
  amount: string | null;
  currency: string | null;
  amount_usd: string | null;
  expected_usdc: string | null;
  expected_basis: ExpectationBasis | null;
  tolerance_bps: number | null;
  window_ends_at: Date | null;
  order_tolerance_bps: number | null;
  in_window_usdc: string;
  in_window_seen_at: Date | null;
  late_usdc: string;
  late_seen_at: Date | null;
}

/**
 * What order-state.ts needs to judge the order of the wallet `w` (the statement names its wallets
 * `w`), set-based: the latest attempt that recorded an expectation (`p`), and the wallet's counted
 * deposits summed on either side of its window (`f`). Deposits are summed, not listed (anyone can
 * send a wallet any number of transfers): each side is handed to the rule as one deposit seen at
 * its side's latest time, which the rule judges exactly as it would the deposits themselves. One
 * wallet's (readOrderFacts) and the ledger's over many (LedgerRepository) are this same text.
 */
export const ORDER_FACTS_SELECT = `p.id AS payment_id, p.provider, p.amount::text AS amount, p.currency, p.amount_usd::text AS amount_usd,
  p.expected_usdc::text AS expected_usdc, p.expected_basis, p.tolerance_bps, p.window_ends_at, w.order_tolerance_bps,
  f.in_window_usdc, f.in_window_seen_at, f.late_usdc, f.late_seen_at`;

/** The joins ORDER_FACTS_SELECT reads from, after `FROM wallets w`. */
export const ORDER_FACTS_JOINS = `LEFT JOIN LATERAL (
    SELECT id, provider, amount, currency, amount_usd, expected_usdc, expected_basis, tolerance_bps, window_ends_at
    FROM payments WHERE wallet_id = w.id AND expected_usdc IS NOT NULL ORDER BY created_at DESC, id DESC LIMIT 1
  ) p ON true
  CROSS JOIN LATERAL (
    SELECT COALESCE(sum(d.amount) FILTER (WHERE NOT d.late), 0)::text AS in_window_usdc,
           max(d.seen_at) FILTER (WHERE NOT d.late) AS in_window_seen_at,
           COALESCE(sum(d.amount) FILTER (WHERE d.late), 0)::text AS late_usdc,
           max(d.seen_at) FILTER (WHERE d.late) AS late_seen_at
    FROM (
      SELECT amount, seen_at, COALESCE(seen_at > p.window_ends_at, false) AS late FROM deposits
      WHERE wallet_id = w.id AND status IN (${sqlStatusList(DEPOSIT_STATUSES_COUNTED_FOR_ORDER)})
    ) d
  ) f`;

/**
 * What order-state.ts needs to judge a wallet's order, in one statement (ORDER_FACTS_SELECT). Runs
 * on a pool or inside a transaction (settlement takes the figures a callback carries with the
 * delivery it writes).
 */
export async function readOrderFacts(db: Pool | PoolClient, walletId: string): Promise<RecordedOrderFacts | undefined> {
  const { rows } = await db.query<OrderFactsRow>({
    name: 'order-facts',
    text: `SELECT ${ORDER_FACTS_SELECT} FROM wallets w ${ORDER_FACTS_JOINS} WHERE w.id = $1`,
    values: [walletId],
  });
  const row = rows[0];
  return row ? orderFactsOf(row) : undefined;
}

/** The facts of one row of ORDER_FACTS_SELECT. */
export function orderFactsOf(row: OrderFactsRow): RecordedOrderFacts {
  const deposits = [
    { amount: BigInt(row.in_window_usdc), seenAt: row.in_window_seen_at },
    { amount: BigInt(row.late_usdc), seenAt: row.late_seen_at },
  ].flatMap(({ amount, seenAt }) => (amount > 0n && seenAt !== null ? [{ amount, seenAt }] : []));
  const facts: RecordedOrderFacts = { walletToleranceBps: row.order_tolerance_bps, deposits };
  const {
    payment_id: paymentId,
    expected_usdc: expected,
    expected_basis: basis,
    tolerance_bps: toleranceBps,
    window_ends_at: windowEndsAt,
  } = row;
  if (paymentId === null) return facts;
  // payments_expectation_whole (migration 029) records an expectation whole or not at all.
  const { provider, amount, currency, amount_usd: amountUsd } = row;
  if (expected === null || basis === null || toleranceBps === null || windowEndsAt === null || amountUsd === null) {
    throw new Error(`payment ${paymentId} has a partial expectation`);
  }
  if (provider === null || amount === null || currency === null) throw new Error(`payment ${paymentId} read without its order`);
  return {
    ...facts,
    expectation: { usdc: BigInt(expected), basis, toleranceBps, windowEndsAt },
    attempt: { paymentId, provider, amount, currency: currency.trim(), amountUsd },
  };
}

/** The order's facts for an app that reads them on its own pool (the status API, the receipt, the CLI's story). */
export class OrderRepository {
  constructor(private readonly pool: Pool) {}

  /** Undefined when there is no such wallet. */
  async findFacts(walletId: string): Promise<RecordedOrderFacts | undefined> {
    return readOrderFacts(this.pool, walletId);
  }
}
