import { ProviderCheckoutError, type ProviderFailureKind } from '../provider-contract';
import type { ProviderCallName, ProviderHttpClient, ProviderHttpRequest } from './provider-http-client';

/**
 * The per-provider numbers of the calls adapters make, told to whoever counts them (payment-redirect's
 * Prometheus registry), so this package needs no metrics library. Every label is from a fixed set.
 */

/** How a call ended: `ok` for any 2xx, else why it failed. */
export type ProviderCallOutcome =
  | 'ok'
  | Extract<ProviderFailureKind, 'timeout' | 'network' | 'too_large' | 'rate_limited' | 'http_5xx' | 'http_4xx'>;

export interface ProviderObserver {
  /** One call to a provider's API, its retries included (what the checkout waited for), and how it ended. */
  call(provider: string, call: ProviderCallName, outcome: ProviderCallOutcome, seconds: number): void;
  /** This process minted a token in the shared token store (a refresh at the provider). */
  tokenMinted(provider: string): void;
}

/** The HTTP client one provider's adapter gets: the shared one, each call told to the observer. */
export function observedHttpClient(http: ProviderHttpClient, provider: string, observer: ProviderObserver): ProviderHttpClient {
  return {
    async request(request) {
      const call = callName(request);
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      try {
        const response = await http.request(request);
        observer.call(provider, call, statusOutcome(response.statusCode), seconds());
        return response;
      } catch (error) {
        observer.call(provider, call, error instanceof ProviderCheckoutError ? transportOutcome(error.failure) : 'network', seconds());
        throw error;
      }
    },
    // The shared client is closed once, by its owner.
    close: async () => undefined,
  };
}

function callName(request: ProviderHttpRequest): ProviderCallName {
  return request.call ?? (request.method === 'GET' ? 'status' : 'session');
}

function statusOutcome(statusCode: number): ProviderCallOutcome {
  if (statusCode >= 200 && statusCode < 300) return 'ok';
  if (statusCode === 429) return 'rate_limited';
  return statusCode >= 500 ? 'http_5xx' : 'http_4xx';
}

function transportOutcome(failure: ProviderFailureKind): ProviderCallOutcome {
  return failure === 'timeout' || failure === 'too_large' ? failure : 'network';
}
