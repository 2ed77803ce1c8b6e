import { GatewayError } from './errors';

/**
 * Fiat currencies a customer may pay in: ISO 4217 codes whose minor unit is two decimals,
 * which is what FIAT_DECIMALS assumes. Adding one here (and a rate in the configuration) is
 * all it takes to accept it.
 */
export const SUPPORTED_CURRENCIES = [
  'USD',
  'EUR',
  'GBP',
  'CAD',
  'AUD',
  'NZD',
  'CHF',
  'SEK',
  'NOK',
  'DKK',
  'PLN',
  'CZK',
  'INR',
  'BRL',
  'MXN',
  'SGD',
  'HKD',
  'ZAR',
  'TRY',
  'AED',
] as const;

export type CurrencyCode = (typeof SUPPORTED_CURRENCIES)[number];

/**
 * An ISO 4217 code in any ASCII case. The input is checked before it is upper-cased, and nothing
 * is trimmed: Unicode case mapping folds other letters into ASCII ("ınr" with a dotless ı becomes
 * INR, "uſd" with a long s USD), so only the 52 ASCII letters may reach toUpperCase.
 */
export function parseCurrency(input: string, param = 'currency'): CurrencyCode {
  if (!/^[A-Za-z]{3}$/.test(input)) {
    throw new GatewayError('invalid_parameter', `${param} must be a three-letter ISO 4217 code such as USD, EUR or CAD`, param);
  }
  const code = input.toUpperCase();
  if (!(SUPPORTED_CURRENCIES as readonly string[]).includes(code)) {
    throw new GatewayError(
      'unsupported_currency',
      `${param} ${code} is not supported; use one of ${SUPPORTED_CURRENCIES.join(', ')}`,
      param,
    );
  }
  return code as CurrencyCode;
}
