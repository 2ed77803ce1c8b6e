import { GatewayError } from './errors';
import { parseCountryCode, type CountryCode } from './provider-terms';

/**
 * The customer's country as a trusted proxy tells it (issue 32: it orders the providers, never
 * hides one). A code ISO 3166-1 leaves to users (AA, QM–QZ, XA–XZ, ZZ: Cloudflare's CF-IPCountry
 * says XX for "unknown") and Cloudflare's T1 (a Tor exit) name no country: no country is known.
 * Anything else that is not two letters is refused (parseCountryCode, naming the header): the
 * proxy is misconfigured.
 */
export function countryFromProxy(input: string, header: string): CountryCode | undefined {
  const trimmed = input.trim();
  if (trimmed.toUpperCase() === 'T1') return undefined;
  const code = parseCountryCode(trimmed, header);
  return isUserAssignedCountryCode(code) ? undefined : code;
}

/** AA, QM to QZ, XA to XZ and ZZ: the codes ISO 3166-1 reserves for private use. */
export function isUserAssignedCountryCode(code: CountryCode): boolean {
  return code === 'AA' || code === 'ZZ' || (code[0] === 'Q' && code[1]! >= 'M') || code[0] === 'X';
}

/**
 * Where the customer is, as a trusted proxy tells it: the country, and the first-level subdivision
 * (ISO 3166-2, the part after the country: TX, ENG, 13) when the operator names that header too. A
 * quote priced per customer (Coinbase's asks a US customer's state) is asked for this.
 */
export interface CustomerLocation {
  country: CountryCode;
  subdivision?: string;
}

const SUBDIVISION = /^(?:([A-Z]{2})-)?([A-Z0-9]{1,3})$/;

/**
 * The subdivision of a customer in `country` as a trusted proxy tells it: Cloudflare's
 * cf-region-code gives the code alone ("TX"), its rules field subdivision_1_iso_code the whole
 * ISO 3166-2 code ("GB-ENG"), whose country must be the customer's. Empty: none is known. Anything
 * else is refused, naming the header: the proxy is misconfigured.
 */
export function subdivisionFromProxy(input: string, country: CountryCode, header: string): string | undefined {
  const trimmed = input.trim().toUpperCase();
  if (trimmed === '') return undefined;
  const [, prefix, code] = SUBDIVISION.exec(trimmed) ?? [];
  if (!code || (prefix !== undefined && prefix !== country)) {
    throw new GatewayError(
      'invalid_parameter',
      `${header} must be an ISO 3166-2 subdivision of ${country}, such as TX or ${country}-TX; got "${input.slice(0, 20)}"`,
      header,
    );
  }
  return code;
}
