import type { FastifyBaseLogger } from 'fastify';
import type { ClaimedCallbackDelivery } from '@gateway/db/callback-worker';
import type { CallbackAttemptOutcome } from '@gateway/domain';
import type { CallbackMetrics } from '../metrics';
import { originOf, type AttemptResult } from './callback-sender';

/** Counts an attempt in the metrics and logs it, by what it left the delivery as. */
export function observeAttempt(
  metrics: CallbackMetrics,
  log: FastifyBaseLogger,
  delivery: ClaimedCallbackDelivery,
  result: AttemptResult,
  outcome: CallbackAttemptOutcome,
): void {
  const errorCode = result.ok ? '' : (result.error?.code ?? '');
  metrics.attempts.inc({ outcome: outcome.kind, error_code: errorCode });
  metrics.attemptDuration.observe({ outcome: outcome.kind }, result.durationMs / 1000);
  const context = {
    deliveryId: delivery.id,
    attemptNo: delivery.attemptNo,
    origin: originOf(delivery.callbackUrl),
    statusCode: result.statusCode,
    durationMs: result.durationMs,
  };
  switch (outcome.kind) {
    case 'delivered':
      metrics.deliveries.inc({ outcome: 'delivered' });
      metrics.dueToDelivered.observe(Math.max(0, Date.now() - delivery.dueAt.getTime()) / 1000);
      metrics.forwardedToDelivered.observe(Math.max(0, Date.now() - delivery.forwardedAt.getTime()) / 1000);
      log.debug(context, 'callback delivered');
      return;
    case 'retry':
      if (outcome.refusalsInRow > 0) metrics.refusedByOrigin.inc({ origin: context.origin }, 0);
      log.info(
        { ...context, error: result.error?.message, nextAttemptAt: outcome.nextAttemptAt, refusalsInRow: outcome.refusalsInRow },
        outcome.refusalsInRow > 0
          ? 'callback refused by the merchant; retry scheduled on the short schedule'
          : 'callback attempt failed; retry scheduled',
      );
      return;
    case 'failed':
      metrics.deliveries.inc({ outcome: 'failed' });
      log.warn({ ...context, error: result.error?.message }, 'callback failed for good; an operator can resend it');
      return;
    case 'refused':
      metrics.deliveries.inc({ outcome: 'refused' });
      metrics.refusedByOrigin.inc({ origin: context.origin });
      log.warn(
        { ...context, refusalsInRow: outcome.refusalsInRow, answer: result.bodyExcerpt.slice(0, 200) },
        'callback refused by the merchant for good; an operator can resend it',
      );
  }
}
