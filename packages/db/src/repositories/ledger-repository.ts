import type { Pool } from 'pg';
import { DEPOSIT_STATUSES_COUNTED_FOR_ORDER, type DepositStatus, type WalletFeeTerms } from '@gateway/domain';
import { ORDER_FACTS_JOINS, ORDER_FACTS_SELECT, orderFactsOf, type OrderFactsRow, type RecordedOrderFacts } from './order-facts';

/** Which orders a ledger covers: those of one payout address whose wallet was created in [from, to). */
export interface LedgerRange {
  /** Lower-case hex, as wallets record it. */
  payoutAddress: string;
  from: Date;
  to: Date;
}

/** A time as the ledger writes it: ISO 8601 in UTC to the millisecond (2026-11-01T00:05:00.000Z), as Date's toISOString does. */
export type LedgerTime = string;

/** One Process Payment attempt of the order, as recorded. */
export interface LedgerAttempt {
  id: string;
  createdAt: LedgerTime;
  provider: string;
  /** The order in its currency, a decimal string as recorded (two decimals). */
  amount: string;
  currency: string;
  /** Its USD value at the attempt's rate, and that rate (units of the currency per USD), its source and time; null before migration 029. */
  amountUsd: string | null;
  usdRate: string | null;
  usdRateSource: string | null;
  usdRateAsOf: LedgerTime | null;
  providerReference: string | null;
  providerStatus: string | null;
}

/** One USDC transfer into the order's wallet. */
export interface LedgerDeposit {
  id: string;
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  /** The block's time (migration 031); null for deposits recorded before it. */
  blockTime: LedgerTime | null;
  seenAt: LedgerTime;
  finalAt: LedgerTime | null;
  amount: bigint;
  status: DepositStatus;
  /** Whether the order's total counts it (final and beyond: DEPOSIT_STATUSES_COUNTED_FOR_ORDER). */
  counted: boolean;
}

/** One payout leg planned for a deposit of the order (cancelled legs, which never moved money, are left out). */
export interface LedgerPayout {
  depositTxHash: string;
  leg: 'merchant' | 'platform' | 'affiliate';
  amount: bigint;
  status: string;
  /** The transaction that paid it, once confirmed. */
  txHash: string | null;
  confirmedAt: LedgerTime | null;
}

/** Everything the ledger says of one order (wallet), read in one row. */
export interface LedgerOrder {
  walletId: string;
  createdAt: LedgerTime;
  temporaryAddress: string;
  payoutAddress: string;
  callbackUrl: string;
  terms: WalletFeeTerms & { merchantFeeBps: number | null; affiliateAddress: string | null };
  /** What order-state.ts judges the order by: the same facts as readOrderFacts gives for the wallet. */
  facts: RecordedOrderFacts;
  /** Oldest first. */
  attempts: LedgerAttempt[];
  /** In chain order. */
  deposits: LedgerDeposit[];
  /** In their deposits' chain order, merchant, platform, affiliate. */
  payouts: LedgerPayout[];
  /** The first callback attempt the merchant answered with a 2xx: its delivery and when the answer came. */
  firstAcceptedCallback: { deliveryId: string; acceptedAt: LedgerTime } | null;
}

/** A time as PostgreSQL writes it in UTC, before ledgerTime. */
type UtcText = string;

interface LedgerRow extends OrderFactsRow {
  wallet_id: string;
  created_at: UtcText;
  polygon_address: string;
  wallet_payout_address: string;
  callback_url: string;
  platform_fee_bps: number;
  affiliate_fee_bps: number | null;
  merchant_fee_bps: number | null;
  affiliate_address: string | null;
  attempts: AttemptJson[] | null;
  deposit_list: DepositJson[] | null;
  payout_list: PayoutJson[] | null;
  accepted_delivery_id: string | null;
  accepted_at: UtcText | null;
}

// The lists come as JSON arrays of positional arrays (a third of the text keyed objects made), every
// time as PostgreSQL writes it in UTC (the transaction's TimeZone), which ledgerTime turns into the
// ledger's text with a few slices. Measured on 100,000 orders: PostgreSQL's statement took an eighth
// to a sixth longer with the times as epoch milliseconds or through to_char, and this process spent a tenth
// of its time reading them into Dates and writing them back with toISOString.
type AttemptJson = [
  id: string,
  createdAt: UtcText,
  provider: string,
  amount: string,
  currency: string,
  amountUsd: string | null,
  usdRate: string | null,
  usdRateSource: string | null,
  usdRateAsOf: UtcText | null,
  providerReference: string | null,
  providerStatus: string | null,
];
type DepositJson = [
  id: string,
  txHash: string,
  logIndex: number,
  blockNumber: string,
  blockTime: UtcText | null,
  seenAt: UtcText,
  finalAt: UtcText | null,
  amount: string,
  status: DepositStatus,
];
type PayoutJson = [
  depositTxHash: string,
  leg: LedgerPayout['leg'],
  amount: string,
  status: string,
  txHash: string | null,
  confirmedAt: UtcText | null,
];

/** A timestamptz column as text, which PostgreSQL writes in the session's TimeZone (UTC here): 2026-11-01 00:05:00.5+00. */
const utc = (column: string) => `${column}::text`;

/**
 * Orders per FETCH: the export holds two batches at most in memory, whatever the range. Small enough
 * that a batch is written before the young generation is collected twice (one of 500 was promoted
 * whole, and under wallet-control's heap limits the old generation's collections then cost a third
 * of the export's time); one batch ahead keeps PostgreSQL busy meanwhile.
 */
export const LEDGER_BATCH_ORDERS = 128;
/** A reader that stops taking batches (a stalled HTTP client) ends the read transaction after this long, freeing its connection. */
const IDLE_READ_LIMIT = '60s';
const COUNTED = new Set<string>(DEPOSIT_STATUSES_COUNTED_FOR_ORDER);

// One row per order, in the order the wallets were created (wallets_payout_created_idx, migration 031).
// Each list is sorted in a subquery and aggregated as it comes (json_agg without ORDER BY keeps its
// input's order): an ORDER BY inside the aggregate set up a sort per order, a twentieth of the statement.
// Each list is read through an index of its table by wallet or deposit: payments_wallet_created_idx,
// deposits_wallet_idx, payouts_active_leg_key, callback_deliveries_wallet_created_idx and the attempts'
// (delivery_id, attempt_no) key.
const LEDGER_SELECT = `SELECT w.id::text AS wallet_id, ${utc('w.created_at')} AS created_at, w.polygon_address, w.payout_address AS wallet_payout_address,
    w.callback_url, w.platform_fee_bps, w.affiliate_fee_bps, w.merchant_fee_bps, w.affiliate_address,
    ${ORDER_FACTS_SELECT},
    (SELECT json_agg(l.item) FROM (
       SELECT json_build_array(a.id, a.created_at, a.provider, a.amount::text, a.currency, a.amount_usd::text, a.usd_rate,
              a.usd_rate_source, a.usd_rate_as_of, a.provider_reference, a.provider_status) AS item
       FROM payments a WHERE a.wallet_id = w.id ORDER BY a.created_at, a.id) l) AS attempts,
    (SELECT json_agg(l.item) FROM (
       SELECT json_build_array(d.id::text, d.tx_hash, d.log_index, d.block_number::text, d.block_time, d.seen_at,
              d.final_at, d.amount::text, d.status) AS item
       FROM deposits d WHERE d.wallet_id = w.id ORDER BY d.block_number, d.log_index, d.id) l) AS deposit_list,
    (SELECT json_agg(l.item) FROM (
       SELECT json_build_array(d.tx_hash, o.leg, o.amount::text, o.status, o.tx_hash, o.confirmed_at) AS item
       FROM deposits d JOIN payouts o ON o.deposit_id = d.id AND o.status <> 'cancelled' WHERE d.wallet_id = w.id
       ORDER BY d.block_number, d.log_index, d.id, array_position(ARRAY['merchant', 'platform', 'affiliate'], o.leg)) l) AS payout_list,
    c.delivery_id AS accepted_delivery_id, ${utc('c.accepted_at')} AS accepted_at
  FROM wallets w
  ${ORDER_FACTS_JOINS}
  LEFT JOIN LATERAL (
    SELECT t.delivery_id::text AS delivery_id, t.started_at + t.duration_ms * interval '1 millisecond' AS accepted_at
    FROM callback_deliveries cd JOIN callback_attempts t ON t.delivery_id = cd.id
    WHERE cd.wallet_id = w.id AND t.status_code BETWEEN 200 AND 299
    ORDER BY t.started_at, t.attempt_no LIMIT 1
  ) c ON true
  WHERE w.payout_address = $1 AND w.created_at >= $2 AND w.created_at < $3
  ORDER BY w.created_at, w.id`;

/**
 * The merchant's ledger (docs/ledger.md): the orders of a payout address, each with its attempts,
 * deposits, payout legs, first accepted callback and the facts its state is judged by. Read by
 * `gateway ledger export` (the owner's login) and wallet-control's GET /admin/ledger (its role: the
 * payout legs' columns granted for it, never where a leg goes).
 */
export class LedgerRepository {
  constructor(private readonly pool: Pool) {}

  /** Whether any wallet pays `payoutAddress` (lower-case hex): a ledger of an address the gateway never saw is a mistake, not an empty file. */
  async knowsPayoutAddress(payoutAddress: string): Promise<boolean> {
    const { rows } = await this.pool.query({
      name: 'ledger-knows-payout-address',
      text: 'SELECT 1 FROM wallets WHERE payout_address = $1 LIMIT 1',
      values: [payoutAddress],
    });
    return rows.length > 0;
  }

  /**
   * The orders of the range, oldest first, read through a server-side cursor (DECLARE … FETCH) in
   * batches of `batchOrders`: memory holds two batches at most whatever the range (the one the
   * consumer has, the next one read meanwhile), and no more is read until the consumer asks. All
   * batches come from one snapshot (a REPEATABLE READ, READ ONLY transaction): an export is the
   * ledger as it stood at one moment. Leaving the loop early (a `break`, a `return()`, an error)
   * closes the cursor and gives the connection back.
   */
  async *orders(range: LedgerRange, batchOrders = LEDGER_BATCH_ORDERS): AsyncGenerator<LedgerOrder[]> {
    if (!Number.isSafeInteger(batchOrders) || batchOrders < 1)
      throw new RangeError(`a batch is a whole number of orders, got ${batchOrders}`);
    const client = await this.pool.connect();
    // A connection lost while the consumer holds a batch (the server ended the idle transaction) is
    // an 'error' event on the client, which the pool listens for only on idle ones: kept here, the
    // next FETCH fails with it instead of the event ending the process.
    let lost: Error | undefined;
    const onError = (error: Error) => {
      lost = error;
    };
    client.on('error', onError);
    let committed = false;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await client.query(`SET LOCAL idle_in_transaction_session_timeout = '${IDLE_READ_LIMIT}'`);
      // Index look-ups row by row, costed high for a long range: JIT would compile it for ~1.4 s
      // (measured at 100,000 orders) to save nothing.
      await client.query('SET LOCAL jit = off');
      // Times written in UTC, whatever the server's or the role's zone: ledgerTime reads them so.
      await client.query("SET LOCAL TimeZone = 'UTC'");
      await client.query({
        text: `DECLARE ledger_orders NO SCROLL CURSOR FOR ${LEDGER_SELECT}`,
        values: [range.payoutAddress, range.from, range.to],
      });
      // One batch ahead: PostgreSQL reads the next batch while this process shapes the one it has
      // (two batches in memory at most).
      const fetch = () => {
        const next = client.query<LedgerRow>(`FETCH ${batchOrders} FROM ledger_orders`);
        // Awaited below, unless the consumer leaves first: then its failure is the connection's, handled there.
        next.catch(() => undefined);
        return next;
      };
      let pending = fetch();
      for (;;) {
        const { rows } = await pending;
        const more = rows.length === batchOrders;
        if (more) pending = fetch();
        if (rows.length > 0) yield rows.map(toLedgerOrder);
        if (!more) break;
      }
      await client.query('COMMIT');
      committed = true;
    } finally {
      client.removeListener('error', onError);
      // Left early (the consumer stopped) or failed: the transaction and its cursor are rolled back;
      // a connection that cannot even do that is dropped from the pool rather than handed out again.
      if (committed) client.release();
      else if (lost) client.release(lost);
      else {
        await client.query('ROLLBACK').then(
          () => client.release(),
          (error: Error) => client.release(error),
        );
      }
    }
  }
}

function toLedgerOrder(row: LedgerRow): LedgerOrder {
  return {
    walletId: row.wallet_id,
    createdAt: ledgerTime(row.created_at),
    temporaryAddress: row.polygon_address,
    payoutAddress: row.wallet_payout_address,
    callbackUrl: row.callback_url,
    terms: {
      platformFeeBps: row.platform_fee_bps,
      affiliateFeeBps: row.affiliate_fee_bps,
      merchantFeeBps: row.merchant_fee_bps,
      affiliateAddress: row.affiliate_address,
    },
    facts: orderFactsOf(row),
    attempts: (row.attempts ?? []).map(
      ([id, createdAt, provider, amount, currency, amountUsd, usdRate, usdRateSource, usdRateAsOf, providerReference, providerStatus]) => ({
        id,
        createdAt: ledgerTime(createdAt),
        provider,
        amount,
        currency: currency.trim(),
        amountUsd,
        usdRate,
        usdRateSource,
        usdRateAsOf: ledgerTimeOrNull(usdRateAsOf),
        providerReference,
        providerStatus,
      }),
    ),
    deposits: (row.deposit_list ?? []).map(([id, txHash, logIndex, blockNumber, blockTime, seenAt, finalAt, amount, status]) => ({
      id,
      txHash,
      logIndex,
      blockNumber: BigInt(blockNumber),
      blockTime: ledgerTimeOrNull(blockTime),
      seenAt: ledgerTime(seenAt),
      finalAt: ledgerTimeOrNull(finalAt),
      amount: BigInt(amount),
      status,
      counted: COUNTED.has(status),
    })),
    payouts: (row.payout_list ?? []).map(([depositTxHash, leg, amount, status, txHash, confirmedAt]) => ({
      depositTxHash,
      leg,
      amount: BigInt(amount),
      status,
      txHash,
      confirmedAt: ledgerTimeOrNull(confirmedAt),
    })),
    firstAcceptedCallback:
      row.accepted_delivery_id !== null && row.accepted_at !== null
        ? { deliveryId: row.accepted_delivery_id, acceptedAt: ledgerTime(row.accepted_at) }
        : null,
  };
}

/**
 * A time as PostgreSQL writes it in UTC (2026-11-01T00:05:00.5+00:00 in JSON, 2026-11-01
 * 00:05:00.5+00 as text; a fraction only when there is one, to the microsecond) as the ledger
 * writes it: 2026-11-01T00:05:00.500Z, the microseconds truncated as pg's reading into a Date does.
 */
export function ledgerTime(text: UtcText): LedgerTime {
  const fraction = text.charCodeAt(19) === 46 /* . */ ? `${text.slice(20, 23).replace(/\D.*$/, '')}00`.slice(0, 3) : '000';
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${fraction}Z`;
}

function ledgerTimeOrNull(text: UtcText | null): LedgerTime | null {
  return text === null ? null : ledgerTime(text);
}
