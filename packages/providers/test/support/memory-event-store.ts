import type { ProviderEvent, ProviderEventStore } from '../../src/support/provider-event-store';

/**
 * The event store on a map, for adapter tests in this package (which has no database);
 * payment-redirect's tests run it on PostgreSQL (ProviderEventRepository). `saves` counts every
 * save, kept or not, so a test sees a repeated one.
 */
export function memoryEventStore(): ProviderEventStore & { kept: Map<string, ProviderEvent>; saves: number } {
  const kept = new Map<string, ProviderEvent>();
  const store = {
    kept,
    saves: 0,
    async save(provider: string, event: ProviderEvent) {
      store.saves += 1;
      const key = `${provider}/${event.eventId}`;
      if (!kept.has(key)) kept.set(key, event);
    },
    async find(provider: string, match: { providerReference?: string; paymentId?: string }) {
      return [...kept.entries()]
        .filter(([key]) => key.startsWith(`${provider}/`))
        .map(([, event]) => event)
        .filter((event) =>
          match.providerReference !== undefined ? event.providerReference === match.providerReference : event.paymentId === match.paymentId,
        )
        .map((event) => event.body);
    },
  };
  return store;
}
