import type { FastifyBaseLogger } from 'fastify';
import type { CheckoutPorts, CheckoutQuotes } from '../checkout-rows';
import type { CheckoutMeasures } from './checkout-measures';
import { customerLocation, type LocationHeaders } from './customer-location';
import type { ProviderCircuitBreaker } from './provider-circuit-breaker';

export interface LiveCheckoutPortsDeps {
  quotes: CheckoutQuotes;
  measures: Pick<CheckoutMeasures, 'current'>;
  circuit: Pick<ProviderCircuitBreaker, 'listed'>;
  /** CUSTOMER_COUNTRY_HEADER and CUSTOMER_SUBDIVISION_HEADER, lower case; undefined: not known. */
  locationHeaders: LocationHeaders;
  /** CHECKOUT_RANKING_MIN_ATTEMPTS. */
  rankingMinAttempts: number;
  log: FastifyBaseLogger;
}

/**
 * The live signals behind the hosted checkout's and the second chance's rows (issue 32), each
 * failing soft: the quote service (an estimate when a quote is not there in time), the measured
 * checkouts (the operator's order without them), the circuit breaker (every provider listed when
 * Redis fails) and where the customer is, from the headers the operator names (none by default).
 */
export function liveCheckoutPorts(deps: LiveCheckoutPortsDeps): CheckoutPorts {
  return {
    quotes: deps.quotes,
    signals: {
      measured: () => deps.measures.current(),
      listed: async (ids) => (await deps.circuit.listed(ids.map((id) => ({ id })))).listed.map(({ id }) => id),
    },
    customerLocation: (headers) => customerLocation(headers, deps.locationHeaders, deps.log),
    rankingMinAttempts: deps.rankingMinAttempts,
  };
}
