import type { MerchantCallbackRepository } from '@gateway/db/wallet-control';

/** Whether the wallet's limit lets this resend through (the route counts it, keyedRateLimit in @gateway/http). */
export type ResendAdmission = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export type CallbackResendOutcome =
  | { result: 'unknown_wallet' }
  | { result: 'nothing_to_resend' }
  | { result: 'rate_limited'; retryAfterSeconds: number }
  /** The latest delivery is pending: it is on its way (or retried on its schedule) already. */
  | { result: 'pending'; deliveryId: string; nextAttemptAt: Date }
  | { result: 'resent'; deliveryId: string; nextAttemptAt: Date };

/**
 * The merchant's "send my latest callback again" (resend-callback.php): the wallet's latest
 * delivery, delivered or given up on, is pending again, the same row, so the callback-worker signs
 * the same URL under the same delivery id. Only PostgreSQL is written: the callback-worker's
 * reconciler gives the due delivery its job (wallet-control holds no queue, and its Redis user may
 * touch none).
 */
export class CallbackResendService {
  constructor(private readonly callbacks: MerchantCallbackRepository) {}

  /**
   * `admit` counts the request against the wallet's limit. It is asked once the wallet is known to
   * have a callback, so a wrong token, or a shop asking before anything was forwarded, counts
   * nothing; from there every request counts, also one that finds the callback pending.
   */
  async resendLatest(ipnToken: string, admit: () => Promise<ResendAdmission>): Promise<CallbackResendOutcome> {
    const wallet = await this.callbacks.findResendable(ipnToken);
    if (!wallet) return { result: 'unknown_wallet' };
    if (wallet.latestDeliveryId === null) return { result: 'nothing_to_resend' };
    const admission = await admit();
    if (!admission.allowed) return { result: 'rate_limited', retryAfterSeconds: admission.retryAfterSeconds };
    // The latest delivery again, in the function's own statement: a deposit forwarded meanwhile may have written a newer one.
    const moved = await this.callbacks.resendLatest(wallet.walletId);
    if (!moved) return { result: 'nothing_to_resend' };
    return moved.resent
      ? { result: 'resent', deliveryId: moved.deliveryId, nextAttemptAt: moved.nextAttemptAt }
      : { result: 'pending', deliveryId: moved.deliveryId, nextAttemptAt: moved.nextAttemptAt };
  }
}
