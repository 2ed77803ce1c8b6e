import { ProviderCheckoutError } from '../provider-contract';
import type { ProviderHttpResponse } from './provider-http-client';

/**
 * Reads a session API's JSON answer the same way for every provider: 2xx with a JSON object is
 * the answer; 429 and 5xx mean the provider is not available now (the customer may try again);
 * any other status is a refusal; a body that is not a JSON object is a malformed answer (also
 * refused). Messages name the provider, the call and the status, never a credential.
 */
export function sessionAnswer(provider: string, call: string, response: ProviderHttpResponse): Record<string, unknown> {
  const { statusCode } = response;
  if (statusCode === 429 || statusCode >= 500) {
    throw new ProviderCheckoutError(
      `${provider} ${call} answered HTTP ${statusCode}`,
      'unavailable',
      statusCode === 429 ? 'rate_limited' : 'http_5xx',
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    body = undefined;
  }
  if (statusCode < 200 || statusCode >= 300) {
    throw new ProviderCheckoutError(`${provider} ${call} refused (HTTP ${statusCode}${errorMessageOf(body)})`, 'refused', 'http_4xx');
  }
  if (!isObject(body)) {
    throw new ProviderCheckoutError(`${provider} ${call} answered something that is not a JSON object`, 'refused', 'malformed');
  }
  return body;
}

/**
 * Reads a status look-up's answer the same way for every provider: 200 with JSON is the answer,
 * anything else throws (the status job tries again later; a customer never waits on it). A 404
 * means "no such order yet" for some providers: they check it before calling this.
 */
export function lookupAnswer(provider: string, lookup: string, response: ProviderHttpResponse): unknown {
  if (response.statusCode !== 200) throw new Error(`${provider} answered the ${lookup} look-up with HTTP ${response.statusCode}`);
  try {
    return JSON.parse(response.body);
  } catch {
    throw new Error(`${provider} answered the ${lookup} look-up with a body that is not JSON`);
  }
}

/** A malformed answer to a call: a field missing or of another type. */
export function malformedAnswer(provider: string, call: string, why: string): ProviderCheckoutError {
  return new ProviderCheckoutError(`${provider} ${call} answer is malformed: ${why}`, 'refused', 'malformed');
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An https URL (http for a local fake or an egress proxy only where `allowHttp`), else undefined. */
export function checkoutUrlIn(value: unknown, allowHttp: boolean): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || (allowHttp && url.protocol === 'http:') ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

// The provider's own words help the operator; a short, single-line excerpt of them only.
function errorMessageOf(body: unknown): string {
  if (!isObject(body)) return '';
  const error = isObject(body.error) ? body.error : body;
  const message = typeof error.message === 'string' ? error.message : typeof error.code === 'string' ? error.code : undefined;
  return message ? `: ${message.replace(/\s+/g, ' ').slice(0, 160)}` : '';
}
