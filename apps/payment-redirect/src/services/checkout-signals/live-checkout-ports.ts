import type { FastifyBaseLogger } from 'fastify';
import type { CheckoutPorts, CheckoutQuotes } from '../checkout-rows';
import type { CheckoutMeasures } from './checkout-measures';
import { customerCountry } from './customer-country';
import type { ProviderCircuitBreaker } from './provider-circuit-breaker';

export interface LiveCheckoutPortsDeps {
  quotes: CheckoutQuotes;
  measures: Pick<CheckoutMeasures, 'current'>;
  circuit: Pick<ProviderCircuitBreaker, 'listed'>;
  /** CUSTOMER_COUNTRY_HEADER, lower case; undefined: no country is known. */
  countryHeader: string | undefined;
  /** CHECKOUT_RANKING_MIN_ATTEMPTS. */
  rankingMinAttempts: number;
  log: FastifyBaseLogger;
}

/**
 * The live signals behind the hosted checkout's and the second chance's rows (issue 32), each
 * failing soft: the quote service (an estimate when a quote is not there in time), the measured
 * checkouts (the operator's order without them), the circuit breaker (every provider listed when
 * Redis fails) and the customer's country from the header the operator names (none by default).
 */
export function liveCheckoutPorts(deps: LiveCheckoutPortsDeps): CheckoutPorts {
  return {
    quotes: deps.quotes,
    signals: {
      measured: () => deps.measures.current(),
      listed: async (ids) => (await deps.circuit.listed(ids.map((id) => ({ id })))).listed.map(({ id }) => id),
    },
    customerCountry: (headers) => customerCountry(headers, deps.countryHeader, deps.log),
    rankingMinAttempts: deps.rankingMinAttempts,
  };
}
