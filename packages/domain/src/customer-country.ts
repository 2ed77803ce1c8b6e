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
