import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { CIRCUIT_STATES, type RecoveryFailureReason, type RecoverySkipReason, type RecoveryTrigger } from '@gateway/domain';
import type { ProviderObserver } from '@gateway/providers';
import type { CheckoutFailureKind } from './services/checkout/provider-checkout';
import type { CircuitMetrics } from './services/checkout-signals/provider-circuit-breaker';
import type { ProviderStatusMetrics } from './services/provider-status/provider-status-service';
import type { QuoteMetrics } from './services/quotes/quote-service';

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
  const declines = new Counter({
    name: 'payment_redirect_provider_declines_total',
    help:
      'Payments declined or failed, by provider and kind of the reason (card_refused, identity_failed, over_limit, ' +
      'country_unserved, abandoned, other: a reason the provider does not document); once per payment and kind',
    labelNames: ['provider', 'kind'] as const,
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
    declineRecorded: (provider, kind) => declines.inc({ provider, kind }),
    reconcilerEnqueued: (count) => reenqueued.inc(count),
  };
}

/** Providers' quotes: the calls made (one per provider, currency and amount band per cache period), the cache's answers, and what rows got. */
export function quoteMetrics(registry: Registry): QuoteMetrics {
  const calls = new Counter({
    name: 'payment_redirect_quote_calls_total',
    help:
      "Calls to a provider's quote API by provider and outcome (ok; refused: an error answer or one not as documented; unavailable: " +
      'not reached; timeout: no answer within QUOTE_TIMEOUT_MS): at most one per provider, currency and amount band per QUOTE_CACHE_MS',
    labelNames: ['provider', 'outcome'] as const,
    registers: [registry],
  });
  const cache = new Counter({
    name: 'payment_redirect_quote_cache_total',
    help:
      "Look-ups of a band's quote by provider and result (hit; stale: older than QUOTE_CACHE_MS, served while one request refreshes it; " +
      'miss: asked of the provider, or waited for while another replica asks)',
    labelNames: ['provider', 'result'] as const,
    registers: [registry],
  });
  const served = new Counter({
    name: 'payment_redirect_quotes_served_total',
    help: "Prices given for an order by provider and basis (quote: the provider's own; estimate: its documented fees)",
    labelNames: ['provider', 'basis'] as const,
    registers: [registry],
  });
  return {
    call: (provider, outcome) => calls.inc({ provider, outcome }),
    cache: (provider, result) => cache.inc({ provider, result }),
    served: (provider, basis) => served.inc({ provider, basis }),
  };
}

/** What became of recovery e-mails (issue 32). */
export interface RecoveryEmailMetrics {
  scheduled(count: number): void;
  sent(trigger: RecoveryTrigger): void;
  /** An SMTP attempt that failed and is retried on the schedule. */
  retried(): void;
  failed(reason: RecoveryFailureReason): void;
  skipped(reason: RecoverySkipReason): void;
  recovered(count: number): void;
  reconcilerEnqueued(count: number): void;
}

export function recoveryEmailMetrics(registry: Registry): RecoveryEmailMetrics {
  const scheduled = new Counter({
    name: 'payment_redirect_recovery_emails_scheduled_total',
    help: 'Recovery e-mails scheduled (or moved to a newer attempt of the same order) for declined and abandoned payments',
    registers: [registry],
  });
  const sent = new Counter({
    name: 'payment_redirect_recovery_emails_sent_total',
    help: 'Recovery e-mails the SMTP server accepted, by trigger (declined, abandoned)',
    labelNames: ['trigger'] as const,
    registers: [registry],
  });
  const retried = new Counter({
    name: 'payment_redirect_recovery_email_retries_total',
    help: 'SMTP attempts of recovery e-mails that certainly did not go (no connection, a 4xx) and are tried again later',
    registers: [registry],
  });
  const failed = new Counter({
    name: 'payment_redirect_recovery_emails_failed_total',
    help:
      'Recovery e-mails given up on, by reason (rejected: a 5xx; retries_used; outcome_unknown: the connection or the process ' +
      'ended once the message was handed over, never sent again)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const skipped = new Counter({
    name: 'payment_redirect_recovery_emails_skipped_total',
    help: 'Recovery e-mails not sent, by reason (order_paid, provider_progress, tried_again, too_late)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const recovered = new Counter({
    name: 'payment_redirect_recovery_orders_recovered_total',
    help: 'Orders whose USDC arrived after their recovery e-mail was sent (counted once per order, within the link lifetime)',
    registers: [registry],
  });
  const reenqueued = new Counter({
    name: 'payment_redirect_recovery_email_reconciler_enqueued_total',
    help: 'Scheduled recovery e-mails that had lost their job (a flushed Redis, a failed job) and got a new one',
    registers: [registry],
  });
  return {
    scheduled: (count) => scheduled.inc(count),
    sent: (trigger) => sent.inc({ trigger }),
    retried: () => retried.inc(),
    failed: (reason) => failed.inc({ reason }),
    skipped: (reason) => skipped.inc({ reason }),
    recovered: (count) => recovered.inc(count),
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
