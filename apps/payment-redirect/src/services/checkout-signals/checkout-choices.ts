import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import {
  rankCheckoutOptions,
  rankSecondChance,
  secondChanceProviders,
  type AvailableProviderOption,
  type CheckoutRanking,
  type CircuitState,
  type CountryCode,
  type DeclineKind,
  type ProviderOption,
  type ProviderTerms,
  type RateTable,
  type SecondChanceRanking,
} from '@gateway/domain';
import type { CheckoutMeasures } from './checkout-measures';
import { customerCountry } from './customer-country';
import type { ProviderCircuitBreaker } from './provider-circuit-breaker';

/** What one page load asks: the order's options and the request, and after a decline, which provider gave up and why. */
export interface CheckoutChoicesRequest {
  /** providerOptions for the order (the hosted checkout's, or the second chance's). */
  readonly options: readonly ProviderOption[];
  readonly headers: IncomingHttpHeaders;
  /** Quoted costs by provider id (quotedCostBps), where quotes were read; else the ranking takes the documented fees. */
  readonly quotedCostBps?: ReadonlyMap<string, number>;
  /**
   * A second chance: the provider that gave up, and the kind of its decline where it is known
   * (absent: `other`, the normal ranking with the generic sentence). `rates` compares limits in
   * other currencies.
   */
  readonly decline?: { readonly failedProvider: string; readonly kind?: DeclineKind; readonly rates: RateTable | undefined };
}

/** The ranked rows as facts for a view model, and what decided them. */
export interface CheckoutChoices {
  readonly ranking: CheckoutRanking | SecondChanceRanking;
  readonly customerCountry?: CountryCode;
  /** The providers available for the order that their open circuit took off the page. */
  readonly circuitOpen: readonly ProviderTerms[];
  /** Every circuit was open, so the least recently opened stayed listed. */
  readonly keptDespiteOpen: boolean;
  /** Each available provider's circuit, as read for this page. */
  readonly circuits: ReadonlyMap<string, CircuitState>;
}

export interface CheckoutChoicesDeps {
  circuit: Pick<ProviderCircuitBreaker, 'listed'>;
  measures: Pick<CheckoutMeasures, 'current'>;
  /** CHECKOUT_RANKING_MIN_ATTEMPTS. */
  minAttempts: number;
  /** CUSTOMER_COUNTRY_HEADER, lower case; undefined: no country is known. */
  countryHeader: string | undefined;
  log: FastifyBaseLogger;
}

/**
 * The hosted checkout's choices (issue 32): the order's available providers less those whose
 * circuit is open (provider-circuit-breaker.ts), ranked by packages/domain (rankCheckoutOptions,
 * or rankSecondChance after a decline) with the measured checkouts, the customer's country and the
 * quotes. Every signal fails soft: without Redis every provider is listed, without the measures the
 * operator's order holds, without a country none is assumed.
 */
export class CheckoutChoicesService {
  constructor(private readonly deps: CheckoutChoicesDeps) {}

  async choose(request: CheckoutChoicesRequest): Promise<CheckoutChoices> {
    const { decline } = request;
    // A second chance never offers the provider that gave up, so it takes no part in keeping the page from being empty.
    const candidates = decline
      ? secondChanceProviders(request.options, decline.failedProvider)
      : request.options.filter((option): option is AvailableProviderOption => option.status === 'available');
    const [page, measured] = await Promise.all([
      this.deps.circuit.listed(candidates.map((option) => ({ id: option.provider.id, option }))),
      this.deps.measures.current(),
    ]);
    const listed = page.listed.map(({ option }) => option);
    const country = customerCountry(request.headers, this.deps.countryHeader, this.deps.log);
    const context = {
      minAttempts: this.deps.minAttempts,
      measured,
      ...(request.quotedCostBps ? { quotedCostBps: request.quotedCostBps } : {}),
      ...(country !== undefined ? { customerCountry: country } : {}),
    };
    const ranking = decline
      ? rankSecondChance(listed, decline.failedProvider, decline.kind ?? 'other', { ...context, rates: decline.rates })
      : rankCheckoutOptions(listed, context);
    const onPage = new Set(listed.map((option) => option.provider.id));
    return {
      ranking,
      ...(country !== undefined ? { customerCountry: country } : {}),
      circuitOpen: candidates.filter((option) => !onPage.has(option.provider.id)).map((option) => option.provider),
      keptDespiteOpen: page.keptDespiteOpen,
      circuits: page.states,
    };
  }
}
