import { isUuid } from '@gateway/domain';
import type { CallbackDeliveryRepository } from './repositories/callback-delivery-repository';

export type CallbackResendOutcome =
  | { result: 'invalid_id'; message: string }
  | { result: 'not_found'; message: string }
  /** Neither failed nor refused (pending or delivered): nothing to resend. */
  | { result: 'not_failed'; status: string; message: string }
  | {
      result: 'resent';
      deliveryId: string;
      nextAttemptAt: Date;
      /** queued: Redis took the job now; reconciler: the callback-worker's reconciler queues it (no queue given, or Redis refused). */
      queuedBy: 'queued' | 'reconciler';
      queueError?: string;
    };

/**
 * The operator's resend of a failed or refused callback delivery, for the admin route and `gateway
 * callbacks resend` alike: the delivery becomes pending and due now with a new retry round (PostgreSQL is the
 * record). `queueNow`, when the caller has Redis, queues it at once; without it, or if Redis refuses,
 * the callback-worker's reconciler queues the due delivery within an interval or two. The repository
 * is on the caller's pool, so the update runs as the caller's role.
 */
export async function resendCallbackDelivery(
  deliveries: CallbackDeliveryRepository,
  id: string,
  queueNow?: (deliveryId: string) => Promise<void>,
): Promise<CallbackResendOutcome> {
  if (!isUuid(id)) return { result: 'invalid_id', message: 'id must be a callback delivery id (uuid)' };
  const deliveryId = id.toLowerCase();
  const outcome = await deliveries.resendFailed(deliveryId);
  if (outcome.result === 'not_found') return { result: 'not_found', message: `no callback delivery ${id}` };
  if (outcome.result === 'not_failed') {
    return {
      result: 'not_failed',
      status: outcome.status,
      message: `delivery ${id} is ${outcome.status}; only failed or refused deliveries can be resent`,
    };
  }
  if (!queueNow) return { result: 'resent', deliveryId, nextAttemptAt: outcome.nextAttemptAt, queuedBy: 'reconciler' };
  try {
    await queueNow(deliveryId);
    return { result: 'resent', deliveryId, nextAttemptAt: outcome.nextAttemptAt, queuedBy: 'queued' };
  } catch (error) {
    return {
      result: 'resent',
      deliveryId,
      nextAttemptAt: outcome.nextAttemptAt,
      queuedBy: 'reconciler',
      queueError: (error as Error).message,
    };
  }
}
