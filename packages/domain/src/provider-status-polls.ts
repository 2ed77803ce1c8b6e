import type { ProviderPaymentStatus } from './payment-progress';

/**
 * When the gateway asks a provider for an order's status (a provider that sends no webhook, an
 * unsigned webhook that is only a hint, a webhook lost on the way). Each payment is asked on a
 * doubling schedule until the provider's status is final or the payment is too old to matter.
 */

/** What a provider will not change any more: the poller stops there. */
export const FINAL_PROVIDER_STATUSES: readonly ProviderPaymentStatus[] = ['paid', 'declined', 'failed'];

export function isFinalProviderStatus(status: ProviderPaymentStatus | null): boolean {
  return status !== null && FINAL_PROVIDER_STATUSES.includes(status);
}

export interface StatusPollSchedule {
  /** The first look-up waits this long after the checkout; each further one doubles it, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** A payment older than this is no longer asked about (the customer left; the chain still sees any USDC). */
  maxAgeMs: number;
}

export const DEFAULT_STATUS_POLL_SCHEDULE: StatusPollSchedule = {
  firstDelayMs: 30_000,
  maxDelayMs: 10 * 60_000,
  maxAgeMs: 24 * 3600_000,
};

/** The wait before the next look-up once `pollsMade` were made. */
export function statusPollDelayMs(pollsMade: number, schedule: StatusPollSchedule): number {
  // 2 ** 40 already dwarfs any cap; the exponent is bounded so the arithmetic stays exact.
  return Math.min(schedule.firstDelayMs * 2 ** Math.min(Math.max(0, pollsMade), 40), schedule.maxDelayMs);
}

/**
 * When the provider is to be asked next about a payment, or null to stop: its status is final, or
 * the next look-up would fall after the payment's maximum age.
 */
export function nextStatusPollAt(
  payment: { providerStatus: ProviderPaymentStatus | null; polls: number; createdAt: Date },
  now: Date,
  schedule: StatusPollSchedule,
): Date | null {
  if (isFinalProviderStatus(payment.providerStatus)) return null;
  const next = now.getTime() + statusPollDelayMs(payment.polls, schedule);
  if (next > payment.createdAt.getTime() + schedule.maxAgeMs) return null;
  return new Date(next);
}
