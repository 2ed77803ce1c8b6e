import { backOff } from 'exponential-backoff';
import type { FastifyBaseLogger } from 'fastify';
import {
  createBatcher,
  type CallbackAttemptRecord,
  type CallbackDeliveryRepository,
  type ClaimedCallbackDelivery,
} from '@gateway/db/callback-worker';
import type { CallbackMetrics } from '../metrics';

// 5 ms of lingering halves PostgreSQL's CPU per delivery under load (measured: bench/) and costs a
// callback 10 ms at most, which no merchant notices.
const BATCH = { maxBatchSize: 100, maxInFlight: 2, lingerMs: 5 };
// A record that PostgreSQL refused is tried again while the claim still holds the row: a short
// outage then costs no second callback.
const RECORD_RETRY = { startingDelay: 250, timeMultiple: 2, maxDelay: 2_000, jitter: 'full' as const };

export interface AttemptRecorder {
  /** Claims a due delivery for one attempt (its lease starts in PostgreSQL); undefined when it is not claimable. */
  claim: (deliveryId: string) => Promise<ClaimedCallbackDelivery | undefined>;
  /**
   * Writes the attempt and the delivery's new status, and resolves once they are committed; a
   * record PostgreSQL refuses is tried again until shortly before `leaseEndsAt`, then rejected.
   */
  record: (attempt: CallbackAttemptRecord, leaseEndsAt: number) => Promise<void>;
  /**
   * Writes the attempt behind the caller, which does not wait: a record PostgreSQL refuses is tried
   * again until shortly before `leaseEndsAt`; one never written leaves the delivery due when its
   * lease ends, so it is sent again with the same delivery id.
   */
  recordBehind: (attempt: CallbackAttemptRecord, leaseEndsAt: number) => void;
  /** Resolves once every record still being written behind is committed (or given up). */
  drain: () => Promise<void>;
}

/**
 * Claims and attempt records of the attempts running at a time, written to PostgreSQL in batches
 * (one statement for many deliveries).
 */
export function createAttemptRecorder(deps: {
  deliveries: CallbackDeliveryRepository;
  attemptLeaseMs: number;
  metrics: CallbackMetrics;
  log: FastifyBaseLogger;
}): AttemptRecorder {
  const { deliveries, metrics, log } = deps;
  const claim = createBatcher(async (ids: string[]) => {
    const claimed = new Map((await deliveries.claimDue(ids, deps.attemptLeaseMs)).map((row) => [row.id, row]));
    // A claim goes to one caller only, even if an id were asked for twice in one batch.
    return ids.map((id) => {
      const row = claimed.get(id);
      claimed.delete(id);
      return row;
    });
  }, BATCH);
  const recordOnce = createBatcher(async (records: CallbackAttemptRecord[]) => {
    await deliveries.recordAttempts(records);
    return records.map(() => undefined);
  }, BATCH);
  // An attempt whose record is lost is sent again when its lease ends, whatever its outcome was: a
  // retry's record lost during an outage would cost the merchant a callback the log never shows.
  const record = (attempt: CallbackAttemptRecord, leaseEndsAt: number): Promise<void> =>
    backOff(() => recordOnce(attempt), {
      ...RECORD_RETRY,
      numOfAttempts: Number.MAX_SAFE_INTEGER,
      retry: () => Date.now() + RECORD_RETRY.maxDelay < leaseEndsAt,
    });
  const recordsBehind = new Set<Promise<void>>();
  const recordBehind = (attempt: CallbackAttemptRecord, leaseEndsAt: number): void => {
    const written = record(attempt, leaseEndsAt).catch((error: unknown) => {
      metrics.recordsLost.inc();
      log.error(
        { err: error, deliveryId: attempt.deliveryId, attemptNo: attempt.attemptNo, outcome: attempt.outcome.kind },
        'attempt record not written; the delivery is sent again once its lease ends',
      );
    });
    recordsBehind.add(written);
    void written.finally(() => recordsBehind.delete(written));
  };
  const drain = async (): Promise<void> => {
    while (recordsBehind.size > 0) await Promise.all(recordsBehind);
  };
  return { claim, record, recordBehind, drain };
}
