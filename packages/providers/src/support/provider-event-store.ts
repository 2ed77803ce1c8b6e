/**
 * Where a provider's events are kept once read from a queue the provider wants emptied (Simplex's
 * events API: read, store, delete each). The gateway's PostgreSQL implements it
 * (@gateway/db ProviderEventRepository); the adapter's status() reads the kept copy.
 */
export interface ProviderEvent {
  /** The provider's id of the event: saving it twice keeps one. */
  eventId: string;
  /** The provider's id of the order it is about. */
  providerReference?: string;
  /** Our payment id, where the event names it. */
  paymentId?: string;
  /** The event as the provider sent it. */
  body: unknown;
}

export interface ProviderEventStore {
  /**
   * Keeps the event. Saving an event already kept changes nothing: a consumer that stopped after
   * saving and before deleting it at the provider reads and saves it again.
   */
  save(provider: string, event: ProviderEvent): Promise<void>;
  /** The provider's kept events about one order: by the provider's reference when given, else by our payment id. */
  find(provider: string, match: { providerReference?: string; paymentId?: string }): Promise<unknown[]>;
}

/** For a registry built without a store: an adapter that needs one fails its look-up (the poller asks again later). */
export const NO_EVENT_STORE: ProviderEventStore = {
  save: async () => {
    throw new Error('no provider event store: events cannot be kept here');
  },
  find: async () => {
    throw new Error('no provider event store: events cannot be read here');
  },
};
