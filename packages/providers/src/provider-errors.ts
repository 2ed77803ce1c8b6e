// The errors an adapter throws, in a file of their own: the support files that throw them are named
// by the contract, which re-exports these, so neither has to import the other.

export class ProviderWebhookError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderWebhookError';
  }
}

/**
 * Why a call or a checkout at a provider failed, a fixed set (a metric label): no answer in time,
 * the connection failed, HTTP 429, 5xx or another 4xx, an answer that is not what the provider
 * documents, an answer too large, the shared token store (Redis) failing, or, for an adapter that
 * says no more, the provider refusing (`refused`) or not being available (`unavailable`).
 */
export type ProviderFailureKind =
  | 'timeout'
  | 'network'
  | 'rate_limited'
  | 'http_5xx'
  | 'http_4xx'
  | 'malformed'
  | 'too_large'
  | 'token_store'
  | 'refused'
  | 'unavailable';

/** The provider refused the checkout (its answer says so): the customer may choose another provider. */
export class ProviderCheckoutError extends Error {
  readonly failure: ProviderFailureKind;

  constructor(
    message: string,
    /** `unavailable`: not reached or no answer in time (try again); `refused`: it answered with an error. */
    readonly kind: 'unavailable' | 'refused',
    failure?: ProviderFailureKind,
  ) {
    super(message);
    this.name = 'ProviderCheckoutError';
    this.failure = failure ?? kind;
  }
}
