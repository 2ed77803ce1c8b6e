import type { Pool } from 'pg';
import { isUuid } from '@gateway/domain';
import { trySessionLock, type SessionLock } from '../session-lock';

/** An event as a provider's adapter keeps it (the providers package's ProviderEvent). */
export interface KeptProviderEvent {
  eventId: string;
  providerReference?: string;
  paymentId?: string;
  body: unknown;
}

/** Held while one process empties a provider's event queue; release() lets the next one in. */
export type ProviderEventConsumerLock = SessionLock;

/**
 * The events read from a provider's queue (migration 028), kept once by their id, and the lock
 * that lets one consumer at a time read and delete them at the provider.
 */
export class ProviderEventRepository {
  constructor(private readonly pool: Pool) {}

  /** Keeps the event; one already kept (the same provider and event id) is left as it is. */
  async save(provider: string, event: KeptProviderEvent): Promise<void> {
    await this.pool.query(
      `INSERT INTO provider_events (provider, event_id, provider_reference, payment_id, body)
       VALUES ($1, $2, $3, $4, $5::jsonb)
       ON CONFLICT (provider, event_id) DO NOTHING`,
      [
        provider,
        event.eventId,
        event.providerReference ?? null,
        // Only one of our payment ids is stored as one: whatever else an event names is not ours.
        event.paymentId !== undefined && isUuid(event.paymentId) ? event.paymentId : null,
        JSON.stringify(event.body),
      ],
    );
  }

  /** The kept events of one order, oldest kept first: by the provider's reference when given, else by our payment id. */
  async find(provider: string, match: { providerReference?: string; paymentId?: string }): Promise<unknown[]> {
    if (match.providerReference === undefined && (match.paymentId === undefined || !isUuid(match.paymentId))) return [];
    const { rows } = await this.pool.query<{ body: unknown }>(
      match.providerReference !== undefined
        ? 'SELECT body FROM provider_events WHERE provider = $1 AND provider_reference = $2 ORDER BY received_at, event_id'
        : 'SELECT body FROM provider_events WHERE provider = $1 AND payment_id = $2 ORDER BY received_at, event_id',
      [provider, match.providerReference ?? match.paymentId],
    );
    return rows.map((row) => row.body);
  }

  /** One consumer of the provider's queue at a time in every replica (undefined when another holds it). */
  tryLockConsumer(provider: string): Promise<ProviderEventConsumerLock | undefined> {
    return trySessionLock(this.pool, 'provider-events', provider);
  }
}
