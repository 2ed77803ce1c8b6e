import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { countryFromProxy, GatewayError, subdivisionFromProxy, type CustomerLocation } from '@gateway/domain';

/** The headers a trusted proxy in front of the payment host sets (lower case); undefined: not configured. */
export interface LocationHeaders {
  /** CUSTOMER_COUNTRY_HEADER. */
  country: string | undefined;
  /** CUSTOMER_SUBDIVISION_HEADER. */
  subdivision: string | undefined;
}

/**
 * Where the customer is, from the headers a trusted proxy sets: the country (CUSTOMER_COUNTRY_HEADER),
 * and its subdivision when CUSTOMER_SUBDIVISION_HEADER is set too. Undefined when no country header
 * is configured, when the request has none or several, or when its value is not a country; a
 * subdivision that is absent or not one leaves the country alone. A value that is not what it should
 * be is logged (a misconfigured proxy). Accept-Language is never read: a language says nothing of
 * where a card was issued.
 */
export function customerLocation(
  headers: IncomingHttpHeaders,
  names: LocationHeaders,
  log: FastifyBaseLogger,
): CustomerLocation | undefined {
  const country = fromProxy(headers, names.country, log, (value, header) => countryFromProxy(value, header));
  if (country === undefined) return undefined;
  const subdivision = fromProxy(headers, names.subdivision, log, (value, header) => subdivisionFromProxy(value, country, header));
  return subdivision === undefined ? { country } : { country, subdivision };
}

function fromProxy<T>(
  headers: IncomingHttpHeaders,
  header: string | undefined,
  log: FastifyBaseLogger,
  parse: (value: string, header: string) => T | undefined,
): T | undefined {
  if (header === undefined) return undefined;
  const value = headers[header];
  if (typeof value !== 'string') return undefined;
  try {
    return parse(value, header);
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    log.warn({ header, value: value.slice(0, 20) }, 'a customer location header holds no code: is the proxy configured?');
    return undefined;
  }
}
