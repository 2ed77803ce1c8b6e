import { Counter, type Registry } from 'prom-client';
import type { ProviderStatusMetrics } from './services/provider-status-service';

/** The provider status metrics, and the reconciler's re-enqueued look-ups. */
export interface PaymentRedirectStatusMetrics extends ProviderStatusMetrics {
  reconcilerEnqueued(count: number): void;
}

/** Per-provider numbers of what providers said (webhooks, look-ups) and what it recorded. */
export function providerStatusMetrics(registry: Registry): PaymentRedirectStatusMetrics {
  const webhooks = new Counter({
    name: 'provider_webhooks_total',
    help: 'Provider webhooks by provider and outcome (updated, unchanged, unknown_payment, ignored, hint: an unsigned one that scheduled a look-up, refused, failed)',
    labelNames: ['provider', 'outcome'] as const,
    registers: [registry],
  });
  const polls = new Counter({
    name: 'provider_status_polls_total',
    help: 'Status look-ups at providers by provider and outcome (updated, unchanged, unknown_payment, not_found: the provider has no such order yet, failed)',
    labelNames: ['provider', 'outcome'] as const,
    registers: [registry],
  });
  const statuses = new Counter({
    name: 'provider_statuses_total',
    help: 'Provider statuses recorded on payments, by provider, status and source (webhook or poll)',
    labelNames: ['provider', 'status', 'source'] as const,
    registers: [registry],
  });
  const reenqueued = new Counter({
    name: 'provider_status_reconciler_enqueued_total',
    help: 'Overdue status look-ups that had lost their job (a flushed Redis, a failed job) and got a new one',
    registers: [registry],
  });
  return {
    webhook: (provider, outcome) => webhooks.inc({ provider, outcome }),
    poll: (provider, outcome) => polls.inc({ provider, outcome }),
    statusReached: (provider, status, source) => statuses.inc({ provider, status, source }),
    reconcilerEnqueued: (count) => reenqueued.inc(count),
  };
}
