import type { FastifyBaseLogger } from 'fastify';
import { isFinalProviderStatus, nextStatusPollAt, type ProviderPaymentStatus, type StatusPollSchedule } from '@gateway/domain';
import {
  createBatcher,
  type PaymentReceiptRepository,
  type ProviderStatusPollRepository,
  type ProviderStatusUpdate,
  type StatusPollRecord,
} from '@gateway/db/payment-redirect';
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
}

export interface ProviderStatusServiceDeps {
  providers: ProviderRegistry;
  receipts: PaymentReceiptRepository;
  polls: ProviderStatusPollRepository;
  queue: ProviderStatusQueue;
  schedule: StatusPollSchedule;
  /** How long one look-up may take (the provider's answer, retries included). */
  lookupTimeoutMs: number;
  metrics: ProviderStatusMetrics;
  log: FastifyBaseLogger;
  now?: () => Date;
}

/**
 * What providers say about payments, however it arrives: a signed webhook (recorded), an unsigned
 * one (a hint: the provider is asked), or a look-up on the payment's schedule. Every status is
 * written by PaymentReceiptRepository.recordProviderStatus under the domain's rules: only a report
 * about the payment's own order (its pinned order id, its wallet as destination) moves it, only
 * forward (a late or polled status never undoes `paid`, nor reopens a charged card but by a
 * refund), and none of it moves money.
 */
// Process Payments of the same moment share one BullMQ add (one write, one wake-up of the worker).
const BATCHING = { maxBatchSize: 64, maxInFlight: 4, lingerMs: 1 };

/** What a report carries into the one writer, with what its provider's descriptor says about such reports. */
function reportUpdate(
  adapter: Pick<ProviderAdapter, 'descriptor'>,
  event: ProviderWebhookEvent,
): Omit<ProviderStatusUpdate, 'providers' | 'match'> {
  return {
    status: event.status,
    rawStatus: event.rawStatus,
    destinationDocumented: adapter.descriptor.reportsDestination === true,
    ...(event.providerReference ? { providerReference: event.providerReference } : {}),
    ...(event.reason ? { reason: event.reason } : {}),
    ...(event.txHash ? { txHash: event.txHash } : {}),
    ...(event.destination ? { destination: event.destination } : {}),
    ...(event.refunded ? { refunded: true } : {}),
    ...(event.eventId ? { eventId: event.eventId } : {}),
  };
}

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
    const outcome = await this.deps.receipts.recordProviderStatus({
      providers,
      ...reportUpdate(adapter, event),
      match: event.match,
      untimed: adapter.descriptor.webhookUntimed === true,
    });
    if (outcome === 'updated') this.deps.metrics.statusReached(endpoint, event.status, 'webhook');
    this.deps.log[outcome === 'unknown_payment' ? 'warn' : 'info'](
      {
        provider: endpoint,
        paymentId: event.match.paymentId,
        providerReference: event.providerReference,
        status: event.status,
        rawStatus: event.rawStatus,
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
      const due = await this.deps.polls.schedule([paymentId], new Date(this.now().getTime() + delay));
      await enqueueStatusPolls(this.deps.queue, due, delay);
    } catch (error) {
      this.deps.log.warn({ paymentId, provider, err: error }, 'status look-ups of the payment could not be scheduled');
    }
  }

  /**
   * One look-up (the worker's job): asks the provider, records what it says, and returns when to
   * ask next, or null when the status is final, the payment too old, or the provider cannot be asked.
   */
  async poll(paymentId: string): Promise<Date | null> {
    const payment = await this.deps.polls.find(paymentId);
    if (!payment || payment.dueAt === null) return null;
    // Woken early (a job recreated by the reconciler, or a retaken stalled one): wait for the schedule.
    if (payment.dueAt.getTime() > this.now().getTime() + 1000) return payment.dueAt;
    const adapter = this.deps.providers.adapter(payment.provider);
    // A webhook made it final since, or the provider can no longer be asked (its settings removed).
    if (!adapter?.status || isFinalProviderStatus(payment.providerStatus)) {
      await this.deps.polls.stop(paymentId);
      return null;
    }
    const status = await this.lookUp(adapter as ProviderAdapter & Required<Pick<ProviderAdapter, 'status'>>, payment);
    // A status another writer recorded meanwhile (a webhook) is read at the next look-up.
    const next = nextStatusPollAt({ ...payment, providerStatus: status, polls: payment.polls + 1 }, this.now(), this.deps.schedule);
    await this.deps.polls.recordPoll(paymentId, next);
    return next;
  }

  /** Asks the provider once and records its answer; returns the payment's provider status as it now stands. */
  private async lookUp(
    adapter: Pick<ProviderAdapter, 'descriptor'> & Required<Pick<ProviderAdapter, 'status'>>,
    payment: StatusPollRecord,
  ): Promise<ProviderPaymentStatus | null> {
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
        { signal: AbortSignal.timeout(this.deps.lookupTimeoutMs) },
      );
      if (event === null) outcome = 'not_found';
      else {
        // Found by our id, which anyone may put on an order of theirs: the repository checks the order is this payment's.
        outcome = await this.deps.receipts.recordProviderStatus({
          providers: [provider],
          ...reportUpdate(adapter, event),
          match: { paymentId },
        });
        if (outcome === 'updated') {
          status = event.status;
          this.deps.metrics.statusReached(provider, event.status, 'poll');
        }
      }
    } catch (error) {
      outcome = 'failed';
      this.deps.log.warn({ paymentId, provider, err: error }, 'provider status look-up failed; asking again later');
    }
    this.deps.metrics.poll(provider, outcome);
    return status;
  }

  /**
   * A hint names a payment (an unsigned webhook, or an event kept from a provider's queue): its
   * provider is asked now, the hint's body never recorded.
   */
  async hint(providers: readonly string[], match: { paymentId?: string; providerReference?: string }): Promise<WebhookOutcomeName> {
    try {
      const paymentId = await this.deps.polls.scheduleNowFor(providers, match);
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
