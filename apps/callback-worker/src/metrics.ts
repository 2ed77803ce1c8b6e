import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { CallbackDeliveryRepository } from '@gateway/db/callback-worker';
import type { CallbackQueue } from '@gateway/queue';

export interface CallbackMetrics {
  attempts: Counter<'outcome' | 'error_code'>;
  deliveries: Counter<'outcome'>;
  refusedByOrigin: Counter<'origin'>;
  attemptDuration: Histogram<'outcome'>;
  dueToDelivered: Histogram;
  forwardedToDelivered: Histogram;
  reconcilerEnqueued: Counter;
  recordsLost: Counter;
}

const QUEUE_STATES = ['waiting', 'delayed', 'active', 'prioritized'] as const;

/** The worker's Prometheus metrics; the two gauges are read from Redis and PostgreSQL at scrape time. */
export function registerCallbackMetrics(
  registry: Registry,
  sources: { queue: CallbackQueue; deliveries: CallbackDeliveryRepository },
): CallbackMetrics {
  const registers = [registry];
  new Gauge({
    name: 'callback_queue_jobs',
    help: 'Callback jobs in Redis by state (delayed = retries and deferrals waiting for their time)',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const counts = await sources.queue.getJobCounts(...QUEUE_STATES);
      for (const state of QUEUE_STATES) this.set({ state }, counts[state] ?? 0);
    },
  });
  new Gauge({
    name: 'callback_oldest_due_seconds',
    help: 'How long the longest-waiting due delivery has been due (0 when none is); grows when delivery falls behind',
    registers,
    async collect() {
      this.set(await sources.deliveries.oldestDueAgeSeconds());
    },
  });
  const deliveries = new Counter({
    name: 'callback_deliveries_total',
    help:
      'Deliveries that reached a final state: delivered; failed after the long retry schedule (or at once when never sendable); ' +
      'refused by the merchant (a 4xx other than 408, 425 and 429) after the short one',
    labelNames: ['outcome'] as const,
    registers,
  });
  // From 0, so that increase() counts the first of each (a series that appears at 1 shows no increase).
  for (const outcome of ['delivered', 'failed', 'refused']) deliveries.inc({ outcome }, 0);
  return {
    deliveries,
    attempts: new Counter({
      name: 'callback_attempts_total',
      help:
        'Callback attempts by outcome (delivered, retry scheduled, failed for good, refused for good, deferred for a busy host) and ' +
        'error code',
      labelNames: ['outcome', 'error_code'] as const,
      registers,
    }),
    // One series per merchant origin that refused a callback since the process started: origins
    // are few, and a delivery exists only for a payment forwarded to its wallet. The series starts
    // at 0 with the origin's first refusal answer (attempt-observer), minutes before a delivery can
    // end refused, so that increase() sees every one.
    refusedByOrigin: new Counter({
      name: 'callback_deliveries_refused_total',
      help: 'Deliveries that ended refused, by the origin of the callback URL (scheme, host and port; never its path or query)',
      labelNames: ['origin'] as const,
      registers,
    }),
    attemptDuration: new Histogram({
      name: 'callback_attempt_duration_seconds',
      help: 'Duration of one callback HTTP attempt, by outcome',
      labelNames: ['outcome'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    dueToDelivered: new Histogram({
      name: 'callback_due_to_delivered_seconds',
      help: 'From the moment the delivered attempt was due to the merchant answering 2xx',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    forwardedToDelivered: new Histogram({
      name: 'callback_forwarded_to_delivered_seconds',
      help: 'From the payout (the deposit marked forwarded, its callback written) to the merchant answering 2xx: what a shop waits',
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21_600, 86_400],
      registers,
    }),
    recordsLost: new Counter({
      name: 'callback_attempt_records_lost_total',
      help:
        'Final attempts whose record could not be written before their lease ended (PostgreSQL away): each of those deliveries is ' +
        'sent again',
      registers,
    }),
    reconcilerEnqueued: new Counter({
      name: 'callback_reconciler_enqueue_total',
      help: 'Due deliveries the reconciler handed to the queue (an add for a delivery that already has a job changes nothing)',
      registers,
    }),
  };
}
