import type { FastifyBaseLogger } from 'fastify';
import type { ProviderEventConsumerLock } from '@gateway/db/payment-redirect';
import type { ProviderAdapter, WebhookPaymentMatch } from '@gateway/providers';
import { RepeatingPass } from '@gateway/queue';

/** What one pass did with a provider's queue. */
export type EventConsumption = 'consumed' | 'busy' | 'failed';

export interface ProviderEventConsumerDeps {
  /** The adapters whose provider keeps a queue of events (consumeEvents). */
  adapters: readonly ProviderAdapter[];
  locks: { tryLockConsumer(provider: string): Promise<ProviderEventConsumerLock | undefined> };
  /** A kept event names a payment: its provider is asked now (ProviderStatusService.hint). */
  askNow(providers: readonly string[], match: WebhookPaymentMatch): Promise<unknown>;
  log: FastifyBaseLogger;
  intervalMs: number;
  /** How long one pass at one provider may take (its reads and deletes). */
  timeoutMs: number;
}

/**
 * Empties the event queues providers want read and deleted (Simplex's poll method), into the
 * database, where their adapters' look-ups read them. One consumer at a time across every
 * replica: a pass takes the provider's advisory lock, or leaves the queue to whoever holds it.
 */
export class ProviderEventConsumer {
  private readonly passes: RepeatingPass;

  constructor(private readonly deps: ProviderEventConsumerDeps) {
    this.passes = new RepeatingPass(
      () => this.runOnce(),
      deps.intervalMs,
      (error) => deps.log.warn({ err: error }, 'provider event pass failed; retrying at the next interval'),
    );
  }

  start(): void {
    this.passes.start();
  }

  stop(): Promise<void> {
    return this.passes.stop();
  }

  /** One pass over every provider's queue. */
  async runOnce(): Promise<Record<string, EventConsumption>> {
    const outcomes: Record<string, EventConsumption> = {};
    for (const adapter of this.deps.adapters) {
      if (adapter.consumeEvents) outcomes[adapter.descriptor.id] = await this.consume(adapter);
    }
    return outcomes;
  }

  private async consume(adapter: ProviderAdapter): Promise<EventConsumption> {
    const provider = adapter.descriptor.id;
    const lock = await this.deps.locks.tryLockConsumer(provider);
    if (!lock) return 'busy';
    try {
      const events = await adapter.consumeEvents!({ signal: AbortSignal.timeout(this.deps.timeoutMs) });
      for (const event of events) await this.deps.askNow([provider], event.match);
      return 'consumed';
    } catch (error) {
      // What was kept stays kept; the rest is read again at the next pass.
      this.deps.log.warn({ provider, err: error }, 'provider event queue could not be emptied; read again at the next pass');
      return 'failed';
    } finally {
      await lock.release();
    }
  }
}
