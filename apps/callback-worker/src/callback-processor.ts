import { DelayedError, type Job } from 'bullmq';
import { backOff } from 'exponential-backoff';
import type { FastifyBaseLogger } from 'fastify';
import type { CallbackHttpClient, CallbackHttpErrorCode, CallbackHttpResult } from '@gateway/callback-http';
import type {
  CallbackAttemptOutcome,
  CallbackAttemptRecord,
  CallbackDeliveryRepository,
  ClaimedCallbackDelivery,
} from '@gateway/db/callback-worker';
import { callbackRetryDelayMs, callbackSchemeRefusal, type CallbackRetrySchedule, type RandomSource, isUuid } from '@gateway/domain';
import type { CallbackJob } from '@gateway/queue';
import type { CallbackSigningKey } from '@usdc-card-gateway/sdk';
import { createBatcher } from '@gateway/db/callback-worker';
import { buildCallbackRequest, type CallbackRequest } from './callback-request';
import { merchantKeyOf, type HostLimiter } from './host-limiter';
import type { CallbackMetrics } from './metrics';

export interface CallbackProcessorDeps {
  deliveries: CallbackDeliveryRepository;
  http: CallbackHttpClient;
  signingKeys: readonly CallbackSigningKey[];
  retrySchedule: CallbackRetrySchedule;
  attemptLeaseMs: number;
  hostLimiter: HostLimiter;
  metrics: CallbackMetrics;
  log: FastifyBaseLogger;
  random?: RandomSource;
  /** Production: a callback over http is never sent (callbackSchemeRefusal in @gateway/domain). */
  requireHttps?: boolean;
}

/**
 * An attempt's result: the HTTP client's, or the worker's own refusal to send, which no retry can
 * change: `callback_released` (the operator released the wallet's callback URL) or `https_required`.
 */
type AttemptResult = Omit<CallbackHttpResult, 'error'> & {
  error?: { code: CallbackHttpErrorCode | 'callback_released' | 'https_required'; message: string; retryable: boolean };
};

function notSent(code: 'invalid_url' | 'callback_released' | 'https_required', message: string): AttemptResult {
  return { ok: false, durationMs: 0, bodyExcerpt: '', error: { code, message, retryable: false } };
}

export interface CallbackProcessor {
  /** The BullMQ processor: one attempt of the job's delivery. */
  processJob: (job: Job<CallbackJob>, token?: string) => Promise<void>;
  /** Resolves once every attempt record still being written behind a finished job is committed (or given up). */
  drainRecords: () => Promise<void>;
}

// A job for a host with every slot taken comes back after about this long (±50%).
const HOST_BUSY_DEFER_MS = 1_000;
// A job that finds its delivery held by another attempt or not due yet waits at least this long,
// so a small clock difference between workers and PostgreSQL cannot make it spin.
const MIN_RECHECK_MS = 250;
// 5 ms of lingering halves PostgreSQL's CPU per delivery under load (measured: bench/) and costs a
// callback 10 ms at most, which no merchant notices.
const BATCH = { maxBatchSize: 100, maxInFlight: 2, lingerMs: 5 };
// A record that PostgreSQL refused is tried again while the claim still holds the row: a short
// outage then costs no second callback.
const RECORD_RETRY = { startingDelay: 250, timeMultiple: 2, maxDelay: 2_000, jitter: 'full' as const };

/**
 * One BullMQ job is one attempt of one delivery (job id = delivery id for the delivery's whole
 * life). The attempt claims the row in PostgreSQL, sends the signed GET, records the attempt and
 * either finishes the job (delivered or failed) or moves the same job to `delayed` until the next
 * attempt, whose time PostgreSQL also holds (so the reconciler can recreate it if Redis loses it).
 *
 * A final attempt (delivered or failed) is recorded behind the job: the job finishes as soon as
 * the merchant has answered and the record joins the next batch. Waiting for that commit held a
 * worker slot for a whole batch round trip and cost 15–25% of throughput at a given concurrency
 * (bench/). Nothing can be lost by it: until the record commits, the claim's lease keeps the row
 * pending and not due; a record PostgreSQL refuses is tried again until shortly before the lease
 * ends; one that never commits (the worker dies, PostgreSQL stays away) leaves the row due when the
 * lease ends, so the reconciler sends it again, with the same delivery id.
 * A retry is recorded before its job is delayed, so the next attempt finds the row due.
 */
export function createCallbackProcessor(deps: CallbackProcessorDeps): CallbackProcessor {
  const { deliveries, metrics, log } = deps;
  const random = deps.random ?? Math.random;
  const claim = createBatcher(async (ids: string[]) => {
    const claimed = new Map((await deliveries.claimDue(ids, deps.attemptLeaseMs)).map((row) => [row.id, row]));
    // A claim goes to one caller only, even if an id were asked for twice in one batch.
    return ids.map((id) => {
      const row = claimed.get(id);
      claimed.delete(id);
      return row;
    });
  }, BATCH);
  const record = createBatcher(async (records: CallbackAttemptRecord[]) => {
    await deliveries.recordAttempts(records);
    return records.map(() => undefined);
  }, BATCH);
  const recordsBehind = new Set<Promise<void>>();
  const recordBehind = (attempt: CallbackAttemptRecord, leaseEndsAt: number): void => {
    const written = backOff(() => record(attempt), {
      ...RECORD_RETRY,
      numOfAttempts: Number.MAX_SAFE_INTEGER,
      retry: () => Date.now() + RECORD_RETRY.maxDelay < leaseEndsAt,
    }).catch((error: unknown) => {
      metrics.recordsLost.inc();
      log.error(
        { err: error, deliveryId: attempt.deliveryId, attemptNo: attempt.attemptNo, outcome: attempt.outcome.kind },
        'attempt record not written; the delivery is sent again once its lease ends',
      );
    });
    recordsBehind.add(written);
    void written.finally(() => recordsBehind.delete(written));
  };

  const send = async (delivery: ClaimedCallbackDelivery): Promise<AttemptResult> => {
    if (delivery.callbackReleased) {
      // The URL may belong to another wallet now: this wallet's payments must never fire it.
      return notSent(
        'callback_released',
        "the wallet's callback URL was released by the operator (release-callback): it is never called for this wallet again",
      );
    }
    let request: CallbackRequest;
    try {
      request = buildCallbackRequest(delivery, deps.signingKeys);
    } catch (error) {
      // Create Wallet validates callbacks, so this is a row written around it: no retry can help.
      return notSent('invalid_url', `the registered callback cannot be called: ${(error as Error).message}`);
    }
    // A wallet registered before production required https (Create Wallet refuses http there now).
    const insecure = callbackSchemeRefusal(new URL(request.url), deps.requireHttps ?? false);
    if (insecure !== undefined) return notSent('https_required', `the registered callback ${insecure}`);
    if (request.droppedParams.length > 0) {
      log.warn(
        { deliveryId: delivery.id, origin: originOf(delivery.callbackUrl), dropped: request.droppedParams },
        'the registered callback URL uses names the gateway reserved; the merchant parameters of those names were left out',
      );
    }
    return deps.http.get(request.url, request.headers);
  };

  const decide = (result: AttemptResult, delivery: ClaimedCallbackDelivery): CallbackAttemptOutcome => {
    if (result.ok) return { kind: 'delivered' };
    if (result.error?.retryable === false) return { kind: 'failed' };
    const delayMs = callbackRetryDelayMs(delivery.failedInRound + 1, deps.retrySchedule, random);
    return delayMs === undefined ? { kind: 'failed' } : { kind: 'retry', nextAttemptAt: new Date(Date.now() + delayMs) };
  };

  const observe = (delivery: ClaimedCallbackDelivery, result: AttemptResult, outcome: CallbackAttemptOutcome): void => {
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
        log.debug(context, 'callback delivered');
        return;
      case 'retry':
        log.info(
          { ...context, error: result.error?.message, nextAttemptAt: outcome.nextAttemptAt },
          'callback attempt failed; retry scheduled',
        );
        return;
      case 'failed':
        metrics.deliveries.inc({ outcome: 'failed' });
        log.warn({ ...context, error: result.error?.message }, 'callback failed for good; an operator can resend it');
    }
  };

  const processJob = async (job: Job<CallbackJob>, token?: string): Promise<void> => {
    const deliveryId = job.data.deliveryId;
    if (typeof deliveryId !== 'string' || !isUuid(deliveryId)) {
      log.warn({ jobId: job.id }, 'callback job without a valid delivery id dropped');
      return;
    }
    // PostgreSQL starts the lease when it runs the claim, after this moment: it ends no earlier
    // than this (give or take the difference between the two clocks).
    const leaseEndsAt = Date.now() + deps.attemptLeaseMs;
    const delivery = await claim(deliveryId.toLowerCase());
    if (delivery === undefined) return waitForDelivery(job, token, deliveries, deliveryId.toLowerCase(), log);

    const release = await deps.hostLimiter.acquire(merchantKeyOf(delivery.callbackUrl));
    if (release === undefined) {
      const notBefore = new Date(Date.now() + HOST_BUSY_DEFER_MS * (0.5 + random()));
      await deliveries.releaseClaim(delivery.id, delivery.attemptNo, notBefore);
      metrics.attempts.inc({ outcome: 'deferred', error_code: '' });
      return delayJob(job, token, notBefore);
    }
    const startedAt = new Date();
    let result: AttemptResult;
    try {
      result = await send(delivery);
    } finally {
      release();
    }
    const outcome = decide(result, delivery);
    const attempt: CallbackAttemptRecord = {
      deliveryId: delivery.id,
      attemptNo: delivery.attemptNo,
      startedAt,
      durationMs: result.durationMs,
      statusCode: result.statusCode,
      errorCode: result.error?.code,
      error: result.error?.message,
      responseExcerpt: result.bodyExcerpt,
      outcome,
    };
    observe(delivery, result, outcome);
    if (outcome.kind !== 'retry') return recordBehind(attempt, leaseEndsAt);
    await record(attempt);
    return delayJob(job, token, outcome.nextAttemptAt);
  };

  const drainRecords = async (): Promise<void> => {
    while (recordsBehind.size > 0) await Promise.all(recordsBehind);
  };
  return { processJob, drainRecords };
}

/**
 * The delivery was not claimable: finished already (a stale or repeated job: done), unknown (done),
 * or pending but held by an attempt in flight or not due yet: come back when it is.
 */
async function waitForDelivery(
  job: Job<CallbackJob>,
  token: string | undefined,
  deliveries: CallbackDeliveryRepository,
  deliveryId: string,
  log: FastifyBaseLogger,
): Promise<void> {
  const [state] = await deliveries.findStates([deliveryId]);
  if (state === undefined) {
    log.warn({ deliveryId }, 'callback job for an unknown delivery dropped');
    return;
  }
  if (state.status !== 'pending') return;
  return delayJob(job, token, new Date(Math.max(state.nextAttemptAt.getTime(), Date.now() + MIN_RECHECK_MS)));
}

/** Keeps the same job (same id) for the next attempt: BullMQ moves it to `delayed` until then. */
async function delayJob(job: Job<CallbackJob>, token: string | undefined, notBefore: Date): Promise<never> {
  await job.moveToDelayed(notBefore.getTime(), token);
  throw new DelayedError();
}

function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : '(not a URL)';
}
