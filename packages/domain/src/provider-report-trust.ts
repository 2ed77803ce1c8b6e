import type { ProviderPaymentStatus } from './payment-progress';
import type { WebhookPaymentFound } from './webhook-payment-match';

/**
 * Whether a provider's report (a signed webhook, or the answer to a status look-up) is about this
 * payment's order, and whether it may move the payment's provider status. Our payment id travels to
 * most providers as an unsigned URL parameter (Wert's click_id, Coinbase's partnerUserRef): anyone
 * can open an order of their own under a victim's payment id, or open a Ramp purchase to a victim's
 * wallet. What a stranger cannot change is where the provider delivers: the order's destination
 * (wallet, network, asset) is the payment's, and the provider's own order id, once seen, is the
 * only one followed afterwards.
 */

/** Where the provider says the order delivers, in its own words; each part only when it reports it. */
export interface ReportedDestination {
  address?: string | undefined;
  network?: string | undefined;
  asset?: string | undefined;
}

/** What is known of the payment the report was matched to. */
export interface PaymentUnderReport {
  /** The payment's temporary wallet. */
  walletAddress: string;
  providerStatus: ProviderPaymentStatus | null;
  /**
   * The provider's order id the payment carries: the last checkout's until a report is recorded, then
   * the order that report was about (pinned); null while none is.
   */
  providerReference: string | null;
  /** How the report found the payment (webhookPaymentLookup). */
  foundBy: WebhookPaymentFound['by'];
}

export interface ProviderReportFacts {
  status: ProviderPaymentStatus;
  providerReference: string | null;
  destination?: ReportedDestination | undefined;
  /** The provider documents the destination in its reports: one without it is not trusted with money statuses. */
  destinationDocumented: boolean;
  /** The provider said it gave the money back (a refund, Ramp's RETURNED). */
  refunded: boolean;
  /** The report carries no signed time (TransFi, Transak): a replay of an old one cannot be told from a new one. */
  untimed: boolean;
}

export type ProviderReportVerdict =
  /** Record the status; `pin` is the order id the payment carries afterwards. */
  | { kind: 'record'; pin: string | null }
  /** About another order (a stranger's, or another customer's): this payment is not touched. */
  | { kind: 'not_this_payment'; why: string }
  /** About this payment, but the status may not move (backwards, or a charge reopened). */
  | { kind: 'unchanged'; why: string };

/** Statuses that say money moved: only a report proven to be about this payment's order may bring them. */
const MONEY_STATUSES: ReadonlySet<ProviderPaymentStatus> = new Set(['charged', 'paid']);
/** Statuses that say the provider gave up: they open the second chance. */
const GAVE_UP: ReadonlySet<ProviderPaymentStatus> = new Set(['declined', 'failed']);

/**
 * Polygon in the providers' words (Wert `polygon`, Coinbase `polygon`, Ramp's chain `MATIC`,
 * Transak `polygon`, TransFi's ticker suffix), compared without case and separators.
 */
const POLYGON_NETWORKS: ReadonlySet<string> = new Set(['polygon', 'matic', 'polygonpos', 'polygonmainnet', 'maticmainnet', '137']);

function squeezed(word: string): string {
  return word.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * Why the reported destination is not the payment's wallet (USDC on Polygon), or undefined when
 * every part reported matches. An asset is USDC when its name starts with it (USDC, USDC_POLYGON,
 * Ramp's MATIC_USDC after its chain prefix, TransFi's USDCPOLYGON).
 */
export function destinationMismatch(walletAddress: string, destination: ReportedDestination | undefined): string | undefined {
  if (!destination) return undefined;
  const { address, network, asset } = destination;
  if (address !== undefined && address.toLowerCase() !== walletAddress.toLowerCase()) return 'the order delivers to another wallet';
  if (network !== undefined && !POLYGON_NETWORKS.has(squeezed(network))) return 'the order delivers on another network';
  if (asset !== undefined && !/^(matic|polygon)?usdc/.test(squeezed(asset))) return 'the order delivers another asset';
  return undefined;
}

/** Whether the report's order is this payment's, and the order id the payment is pinned to. */
function belongs(payment: PaymentUnderReport, report: ProviderReportFacts): ProviderReportVerdict {
  // Before any report, the reference is only the last checkout's: a renewed checkout replaced the first,
  // whose order (opened in another tab) may be the one paid. Once a report was recorded, its order is the payment's.
  const pinned = payment.providerStatus !== null ? payment.providerReference : null;
  if (pinned !== null && pinned !== report.providerReference) {
    return { kind: 'not_this_payment', why: 'another order of the provider than the one the payment follows' };
  }
  const mismatch = destinationMismatch(payment.walletAddress, report.destination);
  if (mismatch) return { kind: 'not_this_payment', why: mismatch };
  if (MONEY_STATUSES.has(report.status) && report.destinationDocumented && report.destination?.address === undefined) {
    return { kind: 'not_this_payment', why: 'the report names no destination wallet, which this provider documents' };
  }
  if (pinned !== null) return { kind: 'record', pin: pinned };
  // Found by the wallet alone (Ramp takes no reference of ours): anyone may open a purchase to a known
  // wallet, so no purchase ends the payment, nor names it, before one proves it paid.
  if (payment.foundBy === 'wallet') {
    if (GAVE_UP.has(report.status)) {
      return { kind: 'not_this_payment', why: 'a purchase found by the wallet alone may not end the payment' };
    }
    return { kind: 'record', pin: MONEY_STATUSES.has(report.status) ? report.providerReference : null };
  }
  return { kind: 'record', pin: report.providerReference ?? payment.providerReference };
}

/** Order of a purchase's life, for reports that carry no signed time: only a later step may be recorded. */
const STEP: Readonly<Record<ProviderPaymentStatus, number>> = { pending: 0, declined: 1, failed: 1, charged: 2, paid: 3 };

/**
 * The forward-only rule. `paid` is final. Nothing returns to pending. Once the card was charged the
 * second chance stays closed: a decline or failure after it (a late or replayed one, or a stranger's)
 * is refused, unless the provider reports the money given back (then `failed`, a refund is never a
 * decline). A report without a signed time may only move a step forward; otherwise a declined or
 * failed attempt may be followed by another card's outcome.
 */
export function providerStatusMove(
  from: ProviderPaymentStatus | null,
  to: ProviderPaymentStatus,
  { refunded, untimed }: { refunded: boolean; untimed: boolean },
): { allowed: true } | { allowed: false; why: string } {
  if (from === null) return { allowed: true };
  if (from === 'paid') return { allowed: false, why: 'paid is final' };
  if (to === 'pending' && from !== 'pending') return { allowed: false, why: 'nothing returns to pending' };
  if (from === 'charged' && (to === 'declined' || to === 'failed')) {
    return to === 'failed' && refunded
      ? { allowed: true }
      : { allowed: false, why: 'the card was charged: only a refund ends the payment' };
  }
  if (untimed && STEP[to] <= STEP[from]) return { allowed: false, why: 'an untimed report may only move forward' };
  return { allowed: true };
}

/** Everything a report must pass before its status is written. */
export function judgeProviderReport(payment: PaymentUnderReport, report: ProviderReportFacts): ProviderReportVerdict {
  const belonging = belongs(payment, report);
  if (belonging.kind !== 'record') return belonging;
  const move = providerStatusMove(payment.providerStatus, report.status, report);
  return move.allowed ? belonging : { kind: 'unchanged', why: move.why };
}

/**
 * The key a report without a signed time is remembered by (migration 026), so a replay is recorded
 * once: the provider's event id where it sends one, else its order and status word (a purchase
 * passes each status once). Undefined when the report names no order: nothing to remember it by.
 */
export function reportReplayKey(report: {
  eventId?: string | undefined;
  providerReference: string | null;
  rawStatus: string;
}): string | undefined {
  if (report.eventId) return `event:${report.eventId}`;
  if (report.providerReference === null) return undefined;
  return `order:${report.providerReference}:${report.rawStatus}`;
}
