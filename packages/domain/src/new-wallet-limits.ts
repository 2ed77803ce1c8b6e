import { createHash } from 'node:crypto';
import { callbackOrigin } from './callback-url';
import type { GatewayError } from './errors';
import { newWalletCeilingReached, newWalletClientLimitReached, payoutQuotaExceeded } from './wallet-request';

/**
 * What bounds the new wallets of Create Wallet and its affiliate variants (issues 22 and 35):
 *  - the per-payout quota, per payout address AND callback origin: a shop's payout address is
 *    public, so strangers using it on callbacks of their own spend a window of their own, never
 *    the one of the shop's origin;
 *  - the gateway-wide ceiling per minute, whoever asks (rotating payout addresses gets no further);
 *  - each client's budget per minute (an IPv4 address or an IPv6 /64, rateLimitClientOf), a slice
 *    of the ceiling, so that no single client can take the whole minute from every other shop.
 * With PAYOUT_ADDRESSES set, an origin that a wallet of the payout address already has (claimed)
 * is charged to neither the ceiling nor the client's budget: every payout address is the
 * operator's, so a claimed origin is a shop of the operator's, and strangers filling the ceiling
 * from new origins cannot stop its orders. Open mode cannot do that: anyone could claim origins
 * with payout addresses of their own and pass the ceiling.
 */
export interface NewWalletLimits {
  /** PAYOUT_WALLET_QUOTA_MAX per PAYOUT_WALLET_QUOTA_WINDOW_SECONDS, per payout address and callback origin. */
  payoutQuota: { max: number; windowSeconds: number };
  /** NEW_WALLETS_PER_MINUTE: across the gateway. */
  perMinute: number;
  /** NEW_WALLETS_PER_CLIENT_PER_MINUTE: per client, below perMinute. */
  perClientPerMinute: number;
  /** PAYOUT_ADDRESSES is set: claimed origins pass the ceiling and the client's budget. */
  exemptClaimedOrigins: boolean;
}

/** A request for a new wallet: its payout address, its callback URL (as parseCallbackUrl left it) and its client. */
export interface NewWalletAsk {
  payoutAddress: string;
  callbackUrl: string;
  /** rateLimitClientOf the request's address: the client the rate limiter counts. */
  client: string;
}

/** A count of new wallets: its name (under the app's Redis prefix) and when it ends (ms since the epoch). */
export interface NewWalletCounter {
  name: string;
  endsAt: number;
}

/** The counters one request is decided by. */
export interface NewWalletCounters {
  /** The callback's canonical origin, named in the quota's refusal. */
  origin: string;
  payoutOrigin: NewWalletCounter;
  client: NewWalletCounter;
  gateway: NewWalletCounter;
  /** exemptClaimedOrigins only: the payout address's recent wallets on the origin; above 0, the origin is claimed. */
  claim?: NewWalletCounter;
}

export interface NewWalletDecision {
  refusal: GatewayError | undefined;
  /** The origin is claimed by the payout address (exemptClaimedOrigins only): its new wallet is charged to the quota alone. */
  claimed: boolean;
}

const MINUTE_MS = 60_000;
/**
 * How long a claim is remembered after the payout address's last new wallet on the origin. A day
 * bounds what a flood of new origins can leave in Redis (at most the ceiling's wallets a day, ~100
 * bytes each); a shop quiet for longer has its next order counted as a new origin's, once.
 */
export const CLAIM_MEMORY_MS = 24 * 3_600_000;

export function newWalletCounters(ask: NewWalletAsk, limits: NewWalletLimits, now: number): NewWalletCounters {
  const origin = callbackOrigin(ask.callbackUrl);
  // Hashed: an origin may be 2,000 characters long, and the claims are kept for a day.
  const payoutOrigin = `${ask.payoutAddress.toLowerCase()}:${createHash('sha256').update(origin).digest('base64url').slice(0, 22)}`;
  const windowMs = limits.payoutQuota.windowSeconds * 1000;
  const window = Math.floor(now / windowMs);
  const minute = Math.floor(now / MINUTE_MS);
  const minuteEnds = (minute + 1) * MINUTE_MS;
  return {
    origin,
    payoutOrigin: { name: `payout-quota:${payoutOrigin}:${window}`, endsAt: (window + 1) * windowMs },
    client: { name: `new-wallets-client:${ask.client}:${minute}`, endsAt: minuteEnds },
    gateway: { name: `new-wallets:${minute}`, endsAt: minuteEnds },
    ...(limits.exemptClaimedOrigins ? { claim: { name: `payout-quota-claim:${payoutOrigin}`, endsAt: now + CLAIM_MEMORY_MS } } : {}),
  };
}

/** Every counter the request is decided by. */
export function countersRead(counters: NewWalletCounters): NewWalletCounter[] {
  return [counters.payoutOrigin, counters.client, counters.gateway, ...(counters.claim ? [counters.claim] : [])];
}

/**
 * The refusal of a request whose counters stand at `count`, or none. The quota first (it names
 * the payout address to fix), then the client's budget (what this client can do: wait), then the
 * ceiling; a claimed origin (exemptClaimedOrigins) answers to the quota alone.
 */
export function newWalletDecision(
  counters: NewWalletCounters,
  count: (counter: NewWalletCounter) => number,
  limits: NewWalletLimits,
  now: number,
): NewWalletDecision {
  const claimed = counters.claim !== undefined && count(counters.claim) > 0;
  const secondsLeft = (counter: NewWalletCounter) => (counter.endsAt - now) / 1000;
  const refused = (refusal: GatewayError) => ({ refusal, claimed });
  if (count(counters.payoutOrigin) >= limits.payoutQuota.max) {
    return refused(payoutQuotaExceeded(limits.payoutQuota, counters.origin, secondsLeft(counters.payoutOrigin)));
  }
  if (claimed) return { refusal: undefined, claimed };
  if (count(counters.client) >= limits.perClientPerMinute) {
    return refused(newWalletClientLimitReached(limits.perClientPerMinute, secondsLeft(counters.client)));
  }
  if (count(counters.gateway) >= limits.perMinute) return refused(newWalletCeilingReached(limits.perMinute, secondsLeft(counters.gateway)));
  return { refusal: undefined, claimed };
}

/** The counters a wallet just created counts in: a claimed origin's only in the quota (and its claim, kept a day longer). */
export function countersCharged(counters: NewWalletCounters, claimed: boolean): NewWalletCounter[] {
  return [counters.payoutOrigin, ...(counters.claim ? [counters.claim] : []), ...(claimed ? [] : [counters.client, counters.gateway])];
}

/** The reason of a refusal, for the metric wallet_control_new_wallets_refused_total. */
export type NewWalletRefusalReason = 'payout_quota' | 'client_limit' | 'gateway_ceiling';

export function newWalletRefusalReason(refusal: GatewayError): NewWalletRefusalReason {
  if (refusal.code === 'new_wallet_ceiling') return 'gateway_ceiling';
  return refusal.code === 'new_wallet_client_limit' ? 'client_limit' : 'payout_quota';
}
