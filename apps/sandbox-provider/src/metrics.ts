import { Counter, type Registry } from 'prom-client';

export type CheckoutOutcome = 'paid' | 'declined' | 'insufficient_funds' | 'invalid_card' | 'replayed';

/** The sandbox provider's own Prometheus metrics, registered on the app's registry. */
export class SandboxMetrics {
  readonly checkouts: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.checkouts = new Counter({
      name: 'sandbox_checkouts_total',
      help:
        'Card form posts by outcome (paid, declined, insufficient_funds, invalid_card, replayed: a post for an order already ' +
        'paid or paying)',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }
}
