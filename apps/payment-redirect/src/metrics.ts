import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { CIRCUIT_STATES } from '@gateway/domain';
import type { ProviderObserver } from '@gateway/providers';
import type { CheckoutFailureKind } from './services/checkout/provider-checkout';
import type { CircuitMetrics } from './services/checkout-signals/provider-circuit-breaker';
import type { ProviderStatusMetrics } from './services/provider-status/provider-status-service';

/** Per-provider numbers of checkouts and of the calls they make: what the adapters' HTTP client and token store tell. */
export interface ProviderCheckoutMetrics extends ProviderObserver {
  checkout(provider: string, outcome: 'created' | 'refused' | 'unavailable', failure?: CheckoutFailureKind): void;
}

export function providerCheckoutMetrics(registry: Registry): ProviderCheckoutMetrics {
  const checkouts = new Counter({
    name: 'payment_redirect_provider_checkouts_total',
    help:
      "Process Payment checkouts (and renewals by the customer's link) by provider and outcome (created; refused: the provider " +
      'answered with an error; unavailable: not reached or no answer in time)',
    labelNames: ['provider', 'outcome'] as const,
    registers: [registry],
  });
  const failures = new Counter({
    name: 'payment_redirect_provider_checkout_failures_total',
    help:
      'Checkouts a provider did not give, by provider and kind (timeout, network, rate_limited, http_5xx, http_4xx, malformed, ' +
      'too_large, token_store, refused, unavailable, adapter_error; circuit_open: its circuit breaker let no call through)',
    labelNames: ['provider', 'kind'] as const,
    registers: [registry],
  });
  const calls = new Histogram({
    name: 'payment_redirect_provider_call_duration_seconds',
    help:
      "Calls to a provider's API (retries included), by provider, call (token, session, quote, status, keys) and outcome (ok, " +
      'timeout, network, too_large, rate_limited, http_5xx, http_4xx)',
    labelNames: ['provider', 'call', 'outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30],
    registers: [registry],
  });
  const minted = new Counter({
    name: 'payment_redirect_provider_tokens_minted_total',
    help: 'Provider tokens this process minted into the shared token store (a refresh at the provider; one replica at a time)',
    labelNames: ['provider'] as const,
    registers: [registry],
  });
  return {
    checkout(provider, outcome, failure) {
      checkouts.inc({ provider, outcome });
      if (failure) failures.inc({ provider, kind: failure });
    },
    call: (provider, call, outcome, seconds) => calls.observe({ provider, call, outcome }, seconds),
    tokenMinted: (provider) => minted.inc({ provider }),
  };
}

/** The provider status metrics, and the reconciler's re-enqueued look-ups. */
export interface PaymentRedirectStatusMetrics extends ProviderStatusMetrics {
  reconcilerEnqueued(count: number): void;
}

/** Per-provider numbers of what providers said (webhooks, look-ups) and what it recorded. */
export function providerStatusMetrics(registry: Registry): PaymentRedirectStatusMetrics {
  const webhooks = new Counter({
    name: 'payment_redirect_provider_webhooks_total',
    help:
      'Provider webhooks by provider and outcome (updated, unchanged, unknown_payment, ignored, hint: an unsigned one that scheduled ' +
      'a look-up, refused, failed)',
    labelNames: ['provider', 'outcome'] as const,
    registers: [registry],
  });
  const polls = new Counter({
    name: 'payment_redirect_provider_status_polls_total',
    help:
      'Status look-ups at providers by provider and outcome (updated, unchanged, unknown_payment, not_found: the provider has no ' +
      'such order yet, failed)',
    labelNames: ['provider', 'outcome'] as const,
    registers: [registry],
  });
  const statuses = new Counter({
    name: 'payment_redirect_provider_statuses_total',
    help: 'Provider statuses recorded on payments, by provider, status and source (webhook or poll)',
    labelNames: ['provider', 'status', 'source'] as const,
    registers: [registry],
  });
  const reenqueued = new Counter({
    name: 'payment_redirect_provider_status_reconciler_enqueued_total',
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

/** The providers' circuit breakers (issue 32) as this replica last saw them, and the openings it made. */
export function providerCircuitMetrics(registry: Registry): CircuitMetrics {
  const states = new Gauge({
    name: 'payment_redirect_provider_circuit_state',
    help:
      "Each provider's circuit breaker as this replica last read or wrote it: 1 on its state (closed, open, half_open), 0 on the " +
      'others (the circuits are shared by every replica in Redis)',
    labelNames: ['provider', 'state'] as const,
    registers: [registry],
  });
  const openings = new Counter({
    name: 'payment_redirect_provider_circuit_openings_total',
    help: "Provider circuits this replica opened: the provider's checkout calls failed over the threshold, or its half-open trial failed",
    labelNames: ['provider'] as const,
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'payment_redirect_provider_circuit_store_errors_total',
    help: 'Reads and writes of the circuits in Redis that failed: the breaker then let every provider and call through',
    registers: [registry],
  });
  return {
    track: (provider) => openings.inc({ provider }, 0),
    state(provider, state) {
      for (const candidate of CIRCUIT_STATES) states.set({ provider, state: candidate }, candidate === state ? 1 : 0);
    },
    opened: (provider) => openings.inc({ provider }),
    storeError: () => storeErrors.inc(),
  };
}
