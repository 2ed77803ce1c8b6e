import type { FastifyBaseLogger } from 'fastify';
import { isFinalProviderStatus, nextStatusPollAt, type ProviderPaymentStatus, type StatusPollSchedule } from '@gateway/domain';
import type { ProviderStatusRepository, StatusPollRecord } from '@gateway/db/payment-redirect';
import type { ProviderAdapter, ProviderRegistry } from '@gateway/providers';
import type { JobHandler, ProviderStatusJob } from '@gateway/queue';
import { reportUpdate, type ProviderStatusMetrics, type StatusPollOutcome } from '../services/provider-status/provider-status-service';

export interface AskProviderDeps {
  providers: ProviderRegistry;
  statuses: Pick<ProviderStatusRepository, 'find' | 'stop' | 'recordPoll' | 'recordProviderReport'>;
  schedule: StatusPollSchedule;
  /** How long one look-up may take (the provider's answer, retries included). */
  lookupTimeoutMs: number;
  metrics: Pick<ProviderStatusMetrics, 'poll' | 'statusReached' | 'declineRecorded'>;
  log: FastifyBaseLogger;
  now?: () => Date;
}

/** The status look-up job of one payment: when to ask next, or null when no more look-ups are due. */
export type AskProvider = (paymentId: string) => Promise<Date | null>;

type AskableAdapter = Pick<ProviderAdapter, 'descriptor'> & Required<Pick<ProviderAdapter, 'status'>>;

/**
 * The provider-status queue's job (job id = payment id): asks the payment's provider, records what
 * it says through the one writer webhooks use, and returns when to ask next, or null when the status
 * is final, the payment too old, or the provider cannot be asked.
 */
export function askProvider(deps: AskProviderDeps): AskProvider {
  const now = deps.now ?? (() => new Date());

  /** Asks the provider once and records its answer; returns the payment's provider status as it now stands. */
  async function lookUp(adapter: AskableAdapter, payment: StatusPollRecord): Promise<ProviderPaymentStatus | null> {
    const { id: paymentId, provider } = payment;
    let outcome: StatusPollOutcome;
    let status = payment.providerStatus;
    try {
      const event = await adapter.status(
        {
          paymentId,
          walletAddress: payment.walletAddress,
          ...(payment.providerReference ? { providerReference: payment.providerReference } : {}),
        },
        { signal: AbortSignal.timeout(deps.lookupTimeoutMs) },
      );
      if (event === null) outcome = 'not_found';
      else {
        // Found by our id, which anyone may put on an order of theirs: the repository checks the order is this payment's.
        const recorded = await deps.statuses.recordProviderReport({
          providers: [provider],
          ...reportUpdate(adapter, event),
          match: { paymentId },
        });
        outcome = recorded.outcome;
        if (outcome === 'updated') {
          status = event.status;
          deps.metrics.statusReached(provider, event.status, 'poll');
        }
        if (recorded.declined) deps.metrics.declineRecorded(provider, recorded.declined);
      }
    } catch (error) {
      outcome = 'failed';
      deps.log.warn({ paymentId, provider, err: error }, 'provider status look-up failed; asking again later');
    }
    deps.metrics.poll(provider, outcome);
    return status;
  }

  return async (paymentId) => {
    const payment = await deps.statuses.find(paymentId);
    if (!payment || payment.dueAt === null) return null;
    // Woken early (a job recreated by the reconciler, or a retaken stalled one): wait for the schedule.
    if (payment.dueAt.getTime() > now().getTime() + 1000) return payment.dueAt;
    const adapter = deps.providers.adapter(payment.provider);
    // A webhook made it final since, or the provider can no longer be asked (its settings removed).
    if (!adapter?.status || isFinalProviderStatus(payment.providerStatus)) {
      await deps.statuses.stop(paymentId);
      return null;
    }
    const status = await lookUp(adapter as AskableAdapter, payment);
    // A status another writer recorded meanwhile (a webhook) is read at the next look-up.
    const next = nextStatusPollAt({ ...payment, providerStatus: status, polls: payment.polls + 1 }, now(), deps.schedule);
    await deps.statuses.recordPoll(paymentId, next);
    return next;
  };
}

/** The provider-status queue's handler: the same job again when the next look-up is due, done when none is. */
export function askProviderJob(ask: AskProvider): JobHandler<ProviderStatusJob> {
  return async (job) => {
    const next = await ask(job.data.paymentId);
    return next === null ? 'done' : { againAt: next };
  };
}
