import type { FastifyBaseLogger } from 'fastify';
import type { CallbackHttpClient, CallbackHttpErrorCode, CallbackHttpResult } from '@gateway/callback-http';
import type { ClaimedCallbackDelivery } from '@gateway/db/callback-worker';
import { callbackSchemeRefusal } from '@gateway/domain';
import type { CallbackSigningKey } from '@usdc-card-gateway/sdk';
import { buildCallbackRequest, type CallbackRequest } from './callback-request';

/**
 * An attempt's result: the HTTP client's, or the worker's own refusal to send, which no retry can
 * change: `callback_released` (the operator released the wallet's callback URL) or `https_required`.
 */
export type AttemptResult = Omit<CallbackHttpResult, 'error'> & {
  error?: { code: CallbackHttpErrorCode | 'callback_released' | 'https_required'; message: string; retryable: boolean };
};

function notSent(code: 'invalid_url' | 'callback_released' | 'https_required', message: string): AttemptResult {
  return { ok: false, durationMs: 0, bodyExcerpt: '', error: { code, message, retryable: false } };
}

export type CallbackSender = (delivery: ClaimedCallbackDelivery) => Promise<AttemptResult>;

/** Sends a claimed delivery's signed GET, unless it must never be sent. */
export function createCallbackSender(deps: {
  http: CallbackHttpClient;
  signingKeys: readonly CallbackSigningKey[];
  /** Production: a callback over http is never sent (callbackSchemeRefusal in @gateway/domain). */
  requireHttps: boolean;
  log: FastifyBaseLogger;
}): CallbackSender {
  return async (delivery) => {
    if (delivery.callbackReleased) {
      // The URL may belong to another wallet now: this wallet's payments must never fire it.
      return notSent(
        'callback_released',
        "the wallet's callback URL was released by the operator (gateway callbacks release): it is never called for this wallet again",
      );
    }
    let request: CallbackRequest;
    try {
      request = buildCallbackRequest(delivery, deps.signingKeys);
    } catch (error) {
      // Create Wallet validates callbacks, so this is a row written around it: no retry can help.
      return notSent('invalid_url', `the registered callback cannot be called: ${(error as Error).message}`);
    }
    // A wallet registered before production required https (Create Wallet refuses http there now).
    const insecure = callbackSchemeRefusal(new URL(request.url), deps.requireHttps);
    if (insecure !== undefined) return notSent('https_required', `the registered callback ${insecure}`);
    if (request.droppedParams.length > 0) {
      deps.log.warn(
        { deliveryId: delivery.id, origin: originOf(delivery.callbackUrl), dropped: request.droppedParams },
        'the registered callback URL uses names the gateway reserved; the merchant parameters of those names were left out',
      );
    }
    return deps.http.get(request.url, request.headers);
  };
}

/** The callback URL's origin for logs (never its query: it holds the merchant's parameters). */
export function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : '(not a URL)';
}
