import { Readable } from 'node:stream';
import {
  formatUsdcFixed,
  orderExpectedShares,
  orderStanding,
  orderToleranceBps,
  type LedgerFormat,
  type LedgerQuery,
} from '@gateway/domain';
import type { LedgerOrder, LedgerRepository } from './repositories/ledger-repository';

/**
 * The merchant's ledger as a file (docs/ledger.md): the orders LedgerRepository reads, each judged
 * by order-state.ts and its expectation shared by the wallet's terms (domain), written as CSV (one
 * row per order, a header first) or JSON Lines (one object per order, the lists nested). The one
 * code path of `gateway ledger export`, wallet-control's GET /admin/ledger and the ledger bench.
 */

export const LEDGER_CONTENT_TYPES: Record<LedgerFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/x-ndjson; charset=utf-8',
};

/** `ledger-<payout address>-<from>-<to>.csv` (or `.jsonl`), the times as compact UTC (20261101T000000Z). */
export function ledgerFileName(query: LedgerQuery): string {
  const stamp = (at: Date) =>
    at
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}Z$/, 'Z');
  return `ledger-${query.payoutAddress}-${stamp(query.from)}-${stamp(query.to)}.${query.format === 'csv' ? 'csv' : 'jsonl'}`;
}

/** USDC amounts of the ledger: decimal strings with all six decimals. */
type Usdc = string;
type Time = string;

export interface LedgerAttemptEntry {
  payment_id: string;
  created_at: Time;
  provider: string;
  provider_reference: string | null;
  provider_status: string | null;
  fiat_amount: string;
  fiat_currency: string;
  amount_usd: string | null;
  usd_rate: string | null;
  usd_rate_source: string | null;
  usd_rate_as_of: Time | null;
}

/** One order of the ledger, as a JSON line says it (the CSV row is drawn from it). */
export interface LedgerEntry {
  order_id: string;
  created_at: Time;
  temporary_address: string;
  payout_address: string;
  callback_url: string;
  terms: {
    platform_fee_bps: number;
    affiliate_fee_bps: number | null;
    merchant_fee_bps: number | null;
    affiliate_address: string | null;
    order_tolerance_bps: number | null;
  };
  /** The attempt the order is judged by (its latest with an expectation), else its latest; null: never tried. */
  payment: LedgerAttemptEntry | null;
  /** Every attempt, oldest first. */
  attempts: LedgerAttemptEntry[];
  /** awaiting, paid, underpaid, overpaid, late; null when no attempt recorded an expectation. */
  state: string | null;
  expected_usdc: Usdc | null;
  expected_basis: string | null;
  /** The tolerance the order was judged with (the attempt's, narrowed by the merchant's). */
  tolerance_bps: number | null;
  total_usdc: Usdc;
  missing_usdc: Usdc | null;
  excess_usdc: Usdc | null;
  late_usdc: Usdc | null;
  /** The expectation divided by the wallet's terms, as settlement would divide a deposit of that amount. */
  expected_shares: { merchant_usdc: Usdc; platform_usdc: Usdc; affiliate_usdc: Usdc } | null;
  deposits: Array<{
    tx_hash: string;
    log_index: number;
    block_number: string;
    block_time: Time | null;
    seen_at: Time;
    final_at: Time | null;
    amount_usdc: Usdc;
    status: string;
    /** Whether total_usdc counts it (final and beyond). */
    counted: boolean;
  }>;
  payouts: Array<{
    deposit_tx_hash: string;
    leg: string;
    amount_usdc: Usdc;
    status: string;
    tx_hash: string | null;
    confirmed_at: Time | null;
  }>;
  /** What the confirmed payout legs paid, by leg. */
  paid: { merchant_usdc: Usdc; platform_usdc: Usdc; affiliate_usdc: Usdc };
  first_accepted_callback: { delivery_id: string; accepted_at: Time } | null;
}

/** The ledger's figures of one order: its standing judged by the domain's rule, its expectation's shares, what its legs paid. */
export function ledgerEntry(order: LedgerOrder): LedgerEntry {
  const { facts, terms } = order;
  const { totalUsdc, judged } = orderStanding(facts);
  const attempts = order.attempts.map(
    (attempt): LedgerAttemptEntry => ({
      payment_id: attempt.id,
      created_at: attempt.createdAt,
      provider: attempt.provider,
      provider_reference: attempt.providerReference,
      provider_status: attempt.providerStatus,
      fiat_amount: attempt.amount,
      fiat_currency: attempt.currency,
      amount_usd: attempt.amountUsd,
      usd_rate: attempt.usdRate,
      usd_rate_source: attempt.usdRateSource,
      usd_rate_as_of: attempt.usdRateAsOf,
    }),
  );
  const judgedId = facts.attempt?.paymentId;
  const payment = attempts.find((attempt) => attempt.payment_id === judgedId) ?? attempts.at(-1) ?? null;
  const paid = { merchant: 0n, platform: 0n, affiliate: 0n };
  for (const payout of order.payouts) if (payout.status === 'confirmed') paid[payout.leg] += payout.amount;
  const shares = facts.expectation ? orderExpectedShares(facts.expectation.usdc, terms) : undefined;
  return {
    order_id: order.walletId,
    created_at: order.createdAt,
    temporary_address: order.temporaryAddress,
    payout_address: order.payoutAddress,
    callback_url: order.callbackUrl,
    terms: {
      platform_fee_bps: terms.platformFeeBps,
      affiliate_fee_bps: terms.affiliateFeeBps,
      merchant_fee_bps: terms.merchantFeeBps,
      affiliate_address: terms.affiliateAddress,
      order_tolerance_bps: facts.walletToleranceBps,
    },
    payment,
    attempts,
    state: judged?.state ?? null,
    expected_usdc: judged ? formatUsdcFixed(judged.expectedUsdc) : null,
    expected_basis: facts.expectation?.basis ?? null,
    tolerance_bps: facts.expectation ? orderToleranceBps(facts.expectation.toleranceBps, facts.walletToleranceBps) : null,
    total_usdc: formatUsdcFixed(totalUsdc),
    missing_usdc: judged ? formatUsdcFixed(judged.missingUsdc) : null,
    excess_usdc: judged ? formatUsdcFixed(judged.excessUsdc) : null,
    late_usdc: judged ? formatUsdcFixed(judged.lateUsdc) : null,
    expected_shares: shares
      ? {
          merchant_usdc: formatUsdcFixed(shares.merchant),
          platform_usdc: formatUsdcFixed(shares.platform),
          affiliate_usdc: formatUsdcFixed(shares.affiliate),
        }
      : null,
    deposits: order.deposits.map((deposit) => ({
      tx_hash: deposit.txHash,
      log_index: deposit.logIndex,
      block_number: deposit.blockNumber.toString(),
      block_time: deposit.blockTime,
      seen_at: deposit.seenAt,
      final_at: deposit.finalAt,
      amount_usdc: formatUsdcFixed(deposit.amount),
      status: deposit.status,
      counted: deposit.counted,
    })),
    payouts: order.payouts.map((payout) => ({
      deposit_tx_hash: payout.depositTxHash,
      leg: payout.leg,
      amount_usdc: formatUsdcFixed(payout.amount),
      status: payout.status,
      tx_hash: payout.txHash,
      confirmed_at: payout.confirmedAt,
    })),
    paid: {
      merchant_usdc: formatUsdcFixed(paid.merchant),
      platform_usdc: formatUsdcFixed(paid.platform),
      affiliate_usdc: formatUsdcFixed(paid.affiliate),
    },
    first_accepted_callback: order.firstAcceptedCallback
      ? { delivery_id: order.firstAcceptedCallback.deliveryId, accepted_at: order.firstAcceptedCallback.acceptedAt }
      : null,
  };
}

/** A CSV list cell: the items separated by one space (tx hashes, times and amounts hold none). */
const list = (items: readonly (string | null)[]) => items.map((item) => item ?? '').join(' ');

/** What several columns of a row draw from, worked out once per row. */
interface CsvRowLists {
  counted: LedgerEntry['deposits'];
  paidTxs: Record<'merchant' | 'platform' | 'affiliate', string[]>;
  unconfirmed: number;
}

function csvRowLists(entry: LedgerEntry): CsvRowLists {
  const paidTxs: CsvRowLists['paidTxs'] = { merchant: [], platform: [], affiliate: [] };
  let unconfirmed = 0;
  for (const payout of entry.payouts) {
    if (payout.status !== 'confirmed') unconfirmed += 1;
    else if (payout.tx_hash !== null) paidTxs[payout.leg as keyof CsvRowLists['paidTxs']].push(payout.tx_hash);
  }
  return { counted: entry.deposits.filter((deposit) => deposit.counted), paidTxs, unconfirmed };
}

type CsvCell = (entry: LedgerEntry, lists: CsvRowLists) => string | number | null;

/**
 * The CSV's columns, one row per order, in this order (docs/ledger.md describes each; a test keeps
 * the two the same). Deposit and payout lists are cells of space-separated items, in chain order.
 */
export const LEDGER_CSV_COLUMNS: ReadonlyArray<readonly [name: string, cell: CsvCell]> = [
  ['order_id', (e) => e.order_id],
  ['order_created_at', (e) => e.created_at],
  ['temporary_address', (e) => e.temporary_address],
  ['payout_address', (e) => e.payout_address],
  ['callback_url', (e) => e.callback_url],
  ['payment_id', (e) => e.payment?.payment_id ?? null],
  ['provider', (e) => e.payment?.provider ?? null],
  ['provider_reference', (e) => e.payment?.provider_reference ?? null],
  ['provider_status', (e) => e.payment?.provider_status ?? null],
  ['fiat_amount', (e) => e.payment?.fiat_amount ?? null],
  ['fiat_currency', (e) => e.payment?.fiat_currency ?? null],
  ['amount_usd', (e) => e.payment?.amount_usd ?? null],
  ['usd_rate', (e) => e.payment?.usd_rate ?? null],
  ['usd_rate_source', (e) => e.payment?.usd_rate_source ?? null],
  ['attempts', (e) => e.attempts.length],
  ['state', (e) => e.state],
  ['expected_usdc', (e) => e.expected_usdc],
  ['expected_basis', (e) => e.expected_basis],
  ['tolerance_bps', (e) => e.tolerance_bps],
  ['total_usdc', (e) => e.total_usdc],
  ['missing_usdc', (e) => e.missing_usdc],
  ['excess_usdc', (e) => e.excess_usdc],
  ['late_usdc', (e) => e.late_usdc],
  ['expected_merchant_usdc', (e) => e.expected_shares?.merchant_usdc ?? null],
  ['expected_platform_usdc', (e) => e.expected_shares?.platform_usdc ?? null],
  ['expected_affiliate_usdc', (e) => e.expected_shares?.affiliate_usdc ?? null],
  ['deposits', (_e, l) => l.counted.length],
  ['deposit_tx_hashes', (_e, l) => list(l.counted.map((deposit) => deposit.tx_hash))],
  ['deposit_block_times', (_e, l) => list(l.counted.map((deposit) => deposit.block_time))],
  ['deposit_amounts_usdc', (_e, l) => list(l.counted.map((deposit) => deposit.amount_usdc))],
  ['merchant_paid_usdc', (e) => e.paid.merchant_usdc],
  ['platform_paid_usdc', (e) => e.paid.platform_usdc],
  ['affiliate_paid_usdc', (e) => e.paid.affiliate_usdc],
  ['merchant_payout_tx_hashes', (_e, l) => l.paidTxs.merchant.join(' ')],
  ['platform_payout_tx_hashes', (_e, l) => l.paidTxs.platform.join(' ')],
  ['affiliate_payout_tx_hashes', (_e, l) => l.paidTxs.affiliate.join(' ')],
  ['unconfirmed_payout_legs', (_e, l) => l.unconfirmed],
  ['first_callback_accepted_at', (e) => e.first_accepted_callback?.accepted_at ?? null],
  ['first_callback_delivery_id', (e) => e.first_accepted_callback?.delivery_id ?? null],
];

/**
 * One CSV field (RFC 4180): quoted when it holds a quote, a comma or a line break, its quotes
 * doubled. A text that a spreadsheet would run as a formula (starting with =, +, -, @, a tab or a
 * carriage return: a provider's reference is anyone's text) gets a leading apostrophe, as OWASP
 * advises for CSV files opened in spreadsheets; the ledger's own figures never start so.
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  const inert = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(inert) ? `"${inert.replaceAll('"', '""')}"` : inert;
}

const CRLF = '\r\n';
export const LEDGER_CSV_HEADER = LEDGER_CSV_COLUMNS.map(([name]) => name).join(',') + CRLF;

// Joined once: a row added to cell by cell is a rope of ~80 pieces that the batch's join then walks and copies.
export function ledgerCsvRow(entry: LedgerEntry): string {
  const lists = csvRowLists(entry);
  const cells = new Array<string>(LEDGER_CSV_COLUMNS.length);
  for (let column = 0; column < cells.length; column += 1) cells[column] = csvField(LEDGER_CSV_COLUMNS[column]![1](entry, lists));
  return cells.join(',') + CRLF;
}

export function ledgerJsonLine(entry: LedgerEntry): string {
  return `${JSON.stringify(entry)}\n`;
}

/**
 * Orders per chunk of text: ~40 KB of CSV, under the size V8 allocates outside the young generation
 * (a batch's 300 KB string there is freed only by a full collection, so the process grew with the
 * export when the heap had room).
 */
const ORDERS_PER_CHUNK = 64;

/**
 * The ledger of `query` as a stream of text: the CSV header (even for no order) then a row per
 * order, or a JSON line per order. Read from PostgreSQL one batch at a time as the consumer pulls
 * (LedgerRepository.orders): memory stays flat whatever the row count. A failure part-way destroys
 * the stream with the error (an HTTP answer is cut, not ended as if whole). `progress.orders`
 * counts the orders written so far.
 */
export function ledgerExport(ledger: LedgerRepository, query: LedgerQuery, progress: { orders: number } = { orders: 0 }): Readable {
  const line = query.format === 'csv' ? ledgerCsvRow : ledgerJsonLine;
  async function* text(): AsyncGenerator<string> {
    if (query.format === 'csv') yield LEDGER_CSV_HEADER;
    for await (const batch of ledger.orders(query)) {
      for (let first = 0; first < batch.length; first += ORDERS_PER_CHUNK) {
        const orders = batch.slice(first, first + ORDERS_PER_CHUNK);
        progress.orders += orders.length;
        yield orders.map((order) => line(ledgerEntry(order))).join('');
      }
    }
  }
  return Readable.from(text(), { objectMode: false });
}
