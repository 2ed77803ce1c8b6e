import type { FastifyBaseLogger } from 'fastify';
import type { CallbackAttemptRecord, CallbackDeliveryRepository } from '@gateway/db/callback-worker';
import {
  callbackAttemptOutcome,
  hostBusyRetryAt,
  isUuid,
  pendingDeliveryRecheckAt,
  type CallbackAttemptOutcome,
  type CallbackRetrySchedules,
  type RandomSource,
} from '@gateway/domain';
import type { CallbackJob, JobHandler, JobResult } from '@gateway/queue';
import type { CallbackMetrics } from '../metrics';
import { observeAttempt } from '../services/attempt-observer';
import type { AttemptRecorder } from '../services/attempt-recorder';
import type { AttemptResult, CallbackSender } from '../services/callback-sender';
import { merchantKeyOf, type HostLimiter } from '../services/host-limiter';

export interface DeliverCallbackDeps {
  deliveries: CallbackDeliveryRepository;
  recorder: AttemptRecorder;
  send: CallbackSender;
  hostLimiter: HostLimiter;
  retrySchedules: CallbackRetrySchedules;
  attemptLeaseMs: number;
  metrics: CallbackMetrics;
  log: FastifyBaseLogger;
  random?: RandomSource;
}

/**
 * One BullMQ job is one attempt of one delivery (job id = delivery id for the delivery's whole
 * life): claim the row in PostgreSQL, send the signed GET, decide what follows (the attempt policy
 * in @gateway/domain), record the attempt, and either finish the job (delivered, failed or refused) or have
 * the same job run again at the next attempt, whose time PostgreSQL also holds (so the
 * reconciler can recreate it if Redis loses it).
 *
 * A final attempt (delivered, failed or refused) is recorded behind the job: the job finishes as soon as
 * the merchant has answered and the record joins the next batch. Waiting for that commit held a
 * worker slot for a whole batch round trip and cost 15–25% of throughput at a given concurrency
 * (bench/). Nothing can be lost by it: until the record commits, the claim's lease keeps the row
 * pending and not due; a record PostgreSQL refuses is tried again until shortly before the lease
 * ends; one that never commits (the worker dies, PostgreSQL stays away) leaves the row due when the
 * lease ends, so the reconciler sends it again, with the same delivery id.
 * A retry is recorded before its job is delayed, so the next attempt finds the row due; its record
 * too is tried again while the lease holds, and the job fails (the reconciler takes the row when
 * the lease ends) only if PostgreSQL stays away that long.
 */
export function createDeliverCallbackJob(deps: DeliverCallbackDeps): JobHandler<CallbackJob> {
  const { deliveries, recorder, metrics, log } = deps;
  const random = deps.random ?? Math.random;
  return async (job) => {
    const deliveryId = job.data.deliveryId;
    if (typeof deliveryId !== 'string' || !isUuid(deliveryId)) {
      log.warn({ jobId: job.id }, 'callback job without a valid delivery id dropped');
      return 'done';
    }
    // PostgreSQL starts the lease when it runs the claim, after this moment: it ends no earlier
    // than this (give or take the difference between the two clocks).
    const leaseEndsAt = Date.now() + deps.attemptLeaseMs;
    const delivery = await recorder.claim(deliveryId.toLowerCase());
    if (delivery === undefined) return waitForDelivery(deliveries, deliveryId.toLowerCase(), log);

    const release = await deps.hostLimiter.acquire(merchantKeyOf(delivery.callbackUrl));
    if (release === undefined) {
      const notBefore = hostBusyRetryAt(Date.now(), random);
      await deliveries.releaseClaim(delivery.id, delivery.attemptNo, notBefore);
      metrics.attempts.inc({ outcome: 'deferred', error_code: '' });
      return { againAt: notBefore };
    }
    const startedAt = new Date();
    let result: AttemptResult;
    try {
      result = await deps.send(delivery);
    } finally {
      release();
    }
    const outcome = callbackAttemptOutcome(result, delivery, deps.retrySchedules, Date.now(), random);
    const attempt: CallbackAttemptRecord = {
      deliveryId: delivery.id,
      attemptNo: delivery.attemptNo,
      startedAt,
      durationMs: result.durationMs,
      statusCode: result.statusCode,
      errorCode: result.error?.code,
      error: attemptError(result, outcome),
      responseExcerpt: result.bodyExcerpt,
      outcome,
    };
    observeAttempt(metrics, log, delivery, result, outcome);
    if (outcome.kind !== 'retry') {
      recorder.recordBehind(attempt, leaseEndsAt);
      return 'done';
    }
    await recorder.record(attempt, leaseEndsAt);
    return { againAt: outcome.nextAttemptAt };
  };
}

/**
 * The attempt's error, which the delivery keeps as its last_error: the HTTP client's, and for the
 * refusal that ends a delivery, that it ended refused (the answer itself is the attempt's excerpt).
 */
function attemptError(result: AttemptResult, outcome: CallbackAttemptOutcome): string | undefined {
  if (outcome.kind !== 'refused') return result.error?.message;
  return (
    `${result.error?.message ?? `answered ${result.statusCode}`}: refused ${outcome.refusalsInRow} time(s) in a row (a 4xx other ` +
    'than 408, 425 and 429), so the delivery ends refused; an operator can resend it'
  );
}

/**
 * The delivery was not claimable: finished already (a stale or repeated job: done), unknown (done),
 * or pending but held by an attempt in flight or not due yet: come back when it is.
 */
async function waitForDelivery(deliveries: CallbackDeliveryRepository, deliveryId: string, log: FastifyBaseLogger): Promise<JobResult> {
  const [state] = await deliveries.findStates([deliveryId]);
  if (state === undefined) {
    log.warn({ deliveryId }, 'callback job for an unknown delivery dropped');
    return 'done';
  }
  if (state.status !== 'pending') return 'done';
  return { againAt: pendingDeliveryRecheckAt(state.nextAttemptAt, Date.now()) };
}
