import type { Pool } from 'pg';
import {
  DEPOSIT_STATUSES_COUNTED_FOR_ORDER,
  measureCheckouts,
  sqlStatusList,
  type MeasuredCheckouts,
  type OrderHistory,
} from '@gateway/domain';
import { type AttemptJson, readAttempt } from './wallet-attempts';

/**
 * How many of an order's newest payments compete for its deposits, and how many of its first
 * counted deposits are credited: an order has ORDER_ATTEMPTS_MAX payments at most (20 by default),
 * and anyone may send a wallet any number of transfers, so both are cut; an attempt's USDC is among
 * the first deposits after it in any order a customer could make.
 */
const ATTEMPTS_PER_ORDER = 100;
const DEPOSITS_PER_ORDER = 20;

interface OrderRow {
  attempts: (AttemptJson & { measured: boolean })[];
  deposits: { tx_hash: string; seen_at: string }[] | null;
}

/**
 * What this gateway measured of each provider's recent checkouts, for the hosted checkout's
 * ranking (measureCheckouts in packages/domain credits the deposits and counts): one statement,
 * the window's payments by payments_checkout_created_idx (migration 037), each order's payments
 * and deposits by the wallet indexes.
 */
export class CheckoutMeasureRepository {
  constructor(private readonly pool: Pool) {}

  /** Per provider with at least one attempt in the last `windowDays`: attempts, those that reached USDC, the median minutes to it. */
  async measure(windowDays: number): Promise<Map<string, MeasuredCheckouts>> {
    const { rows } = await this.pool.query<OrderRow>({
      name: 'checkout-measures',
      text: `WITH recent AS (
               SELECT wallet_id, min(created_at) AS since FROM payments
               WHERE status = 'redirected' AND created_at >= now() - make_interval(days => $1)
               GROUP BY wallet_id
             )
             SELECT (SELECT json_agg(json_build_object('id', a.id, 'provider', a.provider, 'created_at', a.created_at,
                                                       'provider_tx_hash', a.provider_tx_hash,
                                                       'measured', a.status = 'redirected' AND a.created_at >= r.since))
                     FROM (SELECT id, provider, created_at, provider_tx_hash, status FROM payments
                           WHERE wallet_id = r.wallet_id ORDER BY created_at DESC, id DESC LIMIT ${ATTEMPTS_PER_ORDER}) a) AS attempts,
                    (SELECT json_agg(json_build_object('tx_hash', d.tx_hash, 'seen_at', d.seen_at))
                     FROM (SELECT tx_hash, seen_at FROM deposits
                           WHERE wallet_id = r.wallet_id AND seen_at >= r.since
                             AND status IN (${sqlStatusList(DEPOSIT_STATUSES_COUNTED_FOR_ORDER)})
                           ORDER BY seen_at, id LIMIT ${DEPOSITS_PER_ORDER}) d) AS deposits
             FROM recent r`,
      values: [windowDays],
    });
    return measureCheckouts(rows.map(orderHistoryOf));
  }
}

function orderHistoryOf(row: OrderRow): OrderHistory {
  return {
    attempts: row.attempts.map((attempt) => ({ ...readAttempt(attempt), measured: attempt.measured })),
    deposits: (row.deposits ?? []).map((deposit) => ({ txHash: deposit.tx_hash, seenAt: new Date(deposit.seen_at) })),
  };
}
