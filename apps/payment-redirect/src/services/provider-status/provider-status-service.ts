import type { FastifyBaseLogger } from 'fastify';
import type { DeclineKind, ProviderPaymentStatus, StatusPollSchedule } from '@gateway/domain';
import { createBatcher, type ProviderStatusRepository, type ProviderStatusUpdate } from '@gateway/db/payment-redirect';
import {
  ProviderWebhookError,
  type ProviderAdapter,
  type ProviderRegistry,
  type ProviderWebhookEvent,
  type WebhookAcknowledgement,
  type WebhookHeaders,
  type WebhookOutcome,
} from '@gateway/providers';
import { enqueueStatusPolls, pollStatusNow, type ProviderStatusQueue } from '@gateway/queue';

/** What became of a webhook, for the route to answer in HTTP. */
export type WebhookReceipt =
  /** No offered provider receives webhooks at this endpoint. */
  | { kind: 'no_receiver' }
  /** Not authentic (missing, wrong or stale signature; not the provider's body). */
  | { kind: 'refused'; reason: string }
  /** It could not be read now (a provider API it needs failed): the provider should send it again. */
  | { kind: 'failed' }
  /** Accepted: answered as the provider expects; `outcome` says what was done. */
  | { kind: 'accepted'; outcome: WebhookOutcomeName; acknowledgement: WebhookAcknowledgement };

/**
 * updated, unchanged, unknown_payment: recorded (or not) by the forward-only rule; ignored: nothing
 * to record; hint: a look-up scheduled.
 */
export type WebhookOutcomeName = 'updated' | 'unchanged' | 'unknown_payment' | 'ignored' | 'hint';

/** What one look-up did: the status written (or not), nothing known yet, or the provider not answering. */
export type StatusPollOutcome = 'updated' | 'unchanged' | 'unknown_payment' | 'not_found' | 'failed';

export interface ProviderStatusMetrics {
  webhook(provider: string, outcome: WebhookOutcomeName | 'refused' | 'failed'): void;
  poll(provider: string, outcome: StatusPollOutcome): void;
  /** A provider status recorded, and whether a webhook or a look-up brought it. */
  statusReached(provider: string, status: ProviderPaymentStatus, source: 'webhook' | 'poll'): void;
  /** A payment declined (or failed) with this kind of reason: once per payment and kind, however often the provider repeats it. */
  declineRecorded(provider: string, kind: DeclineKind): void;
}

export interface ProviderStatusServiceDeps {
  providers: ProviderRegistry;
  statuses: ProviderStatusRepository;
  queue: ProviderStatusQueue;
  schedule: StatusPollSchedule;
  metrics: ProviderStatusMetrics;
  log: FastifyBaseLogger;
  now?: () => Date;
}

// Process Payments of the same moment share one BullMQ add (one write, one wake-up of the worker).
const BATCHING = { maxBatchSize: 64, maxInFlight: 4, lingerMs: 1 };

/** What a report carries into the one writer, with what its provider's descriptor says about such reports. */
export function reportUpdate(
  adapter: Pick<ProviderAdapter, 'descriptor'>,
  event: ProviderWebhookEvent,
): Omit<ProviderStatusUpdate, 'providers' | 'match'> {
  return {
    status: event.status,
    rawStatus: event.rawStatus,
    destinationDocumented: adapter.descriptor.reportsDestination === true,
    ...(event.providerReference ? { providerReference: event.providerReference } : {}),
    ...(event.reason ? { reason: event.reason } : {}),
    ...(event.declineKind ? { declineKind: event.declineKind } : {}),
    ...(event.txHash ? { txHash: event.txHash } : {}),
    ...(event.destination ? { destination: event.destination } : {}),
    ...(event.refunded ? { refunded: true } : {}),
    ...(event.eventId ? { eventId: event.eventId } : {}),
  };
}

/**
 * What providers say about payments, however it arrives: a signed webhook (recorded), an unsigned
 * one (a hint: the provider is asked), or a look-up on the payment's schedule (jobs/ask-provider.ts). Every status is
 * written by ProviderStatusRepository.recordProviderStatus under the domain's rules: only a report
 * about the payment's own order (its pinned order id, its wallet as destination) moves it, only
 * forward (a late or polled status never undoes `paid`, nor reopens a charged card but by a
 * refund), and none of it moves money.
 */
export class ProviderStatusService {
  private readonly now: () => Date;
  /** Adds the first look-up's job of a payment whose schedule is recorded, with others of the same moment. */
  private readonly enqueueFirstLookUp: (paymentId: string) => Promise<void>;

  constructor(private readonly deps: ProviderStatusServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    this.enqueueFirstLookUp = createBatcher(async (paymentIds: string[]) => {
      await enqueueStatusPolls(deps.queue, paymentIds, deps.schedule.firstDelayMs);
      return paymentIds.map(() => undefined);
    }, BATCHING);
  }

  /** When a new payment's provider is first asked about it; undefined for a provider that cannot be asked. */
  firstLookUpAt(provider: string): Date | undefined {
    if (!this.deps.providers.adapter(provider)?.status) return undefined;
    return new Date(this.now().getTime() + this.deps.schedule.firstDelayMs);
  }

  async receiveWebhook(endpoint: string, rawBody: Buffer, headers: WebhookHeaders): Promise<WebhookReceipt> {
    const receiver = this.deps.providers.webhookReceiver(endpoint);
    if (!receiver) return { kind: 'no_receiver' };
    const { adapter, providers } = receiver;
    const unsigned = adapter.descriptor.webhookUnsigned === true;
    let verified: WebhookOutcome;
    try {
      verified = await adapter.verifyWebhook(rawBody, headers);
    } catch (error) {
      if (unsigned) {
        // Anyone may post an unsigned webhook, and its provider disables an endpoint that fails: never an error.
        this.deps.log.info({ provider: endpoint, err: error }, 'unsigned provider webhook unreadable; ignored');
        return this.accepted(endpoint, 'ignored', { statusCode: 200, contentType: 'application/json', body: '{"received":true}' });
      }
      if (!(error instanceof ProviderWebhookError)) {
        this.deps.metrics.webhook(endpoint, 'failed');
        this.deps.log.error({ provider: endpoint, err: error }, 'provider webhook could not be processed');
        return { kind: 'failed' };
      }
      this.deps.metrics.webhook(endpoint, 'refused');
      this.deps.log.warn({ provider: endpoint, reason: error.message }, 'provider webhook refused');
      return { kind: 'refused', reason: error.message };
    }
    if (verified.kind === 'ignored') {
      this.deps.log.info({ provider: endpoint, why: verified.why }, 'provider webhook ignored');
      return this.accepted(endpoint, 'ignored', verified.acknowledgement);
    }
    const { event } = verified;
    if (unsigned) return this.accepted(endpoint, await this.hint(providers, event.match), verified.acknowledgement);
    const { outcome, declined } = await this.deps.statuses.recordProviderReport({
      providers,
      ...reportUpdate(adapter, event),
      match: event.match,
      untimed: adapter.descriptor.webhookUntimed === true,
    });
    if (outcome === 'updated') this.deps.metrics.statusReached(endpoint, event.status, 'webhook');
    if (declined) this.deps.metrics.declineRecorded(endpoint, declined);
    this.deps.log[outcome === 'unknown_payment' ? 'warn' : 'info'](
      {
        provider: endpoint,
        paymentId: event.match.paymentId,
        providerReference: event.providerReference,
        status: event.status,
        rawStatus: event.rawStatus,
        declineKind: event.declineKind,
        outcome,
      },
      'provider webhook',
    );
    return this.accepted(endpoint, outcome, verified.acknowledgement);
  }

  /**
   * A checkout was recorded: a provider that can be asked gets its first look-up on the schedule.
   * `scheduled`: the checkout's own statement recorded the schedule (firstLookUpAt), only its job is
   * added. A failure here is logged, never the customer's: the webhook still comes.
   */
  async track(paymentId: string, provider: string, { scheduled = false } = {}): Promise<void> {
    if (!this.deps.providers.adapter(provider)?.status) return;
    try {
      if (scheduled) {
        await this.enqueueFirstLookUp(paymentId);
        return;
      }
      const delay = this.deps.schedule.firstDelayMs;
      const due = await this.deps.statuses.schedule([paymentId], new Date(this.now().getTime() + delay));
      await enqueueStatusPolls(this.deps.queue, due, delay);
    } catch (error) {
      this.deps.log.warn({ paymentId, provider, err: error }, 'status look-ups of the payment could not be scheduled');
    }
  }

  /**
   * A hint names a payment (an unsigned webhook, or an event kept from a provider's queue): its
   * provider is asked now, the hint's body never recorded.
   */
  async hint(providers: readonly string[], match: { paymentId?: string; providerReference?: string }): Promise<WebhookOutcomeName> {
    try {
      const paymentId = await this.deps.statuses.scheduleNowFor(providers, match);
      if (!paymentId) return 'unknown_payment';
      await pollStatusNow(this.deps.queue, paymentId);
      return 'hint';
    } catch (error) {
      // Still answered 2xx: the payment's own schedule (or the reconciler) asks the provider anyway.
      this.deps.log.warn({ providers, err: error }, 'look-up after an unsigned webhook could not be scheduled');
      return 'hint';
    }
  }

  private accepted(provider: string, outcome: WebhookOutcomeName, acknowledgement: WebhookAcknowledgement): WebhookReceipt {
    this.deps.metrics.webhook(provider, outcome);
    return { kind: 'accepted', outcome, acknowledgement };
  }
}
