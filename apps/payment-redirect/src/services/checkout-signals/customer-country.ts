import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { countryFromProxy, GatewayError, type CountryCode } from '@gateway/domain';

/**
 * The customer's country, from the header a trusted proxy sets (CUSTOMER_COUNTRY_HEADER, lower
 * case); undefined when no header is configured, when the request has none or several, or when its
 * value is not a country (logged: a misconfigured proxy). Accept-Language is never read: a
 * language says nothing of where a card was issued.
 */
export function customerCountry(headers: IncomingHttpHeaders, header: string | undefined, log: FastifyBaseLogger): CountryCode | undefined {
  if (header === undefined) return undefined;
  const value = headers[header];
  if (typeof value !== 'string') return undefined;
  try {
    return countryFromProxy(value, header);
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    log.warn({ header, value: value.slice(0, 20) }, "the customer's country header holds no country code: is the proxy configured?");
    return undefined;
  }
}
