import type { DocumentedMinutes, ProviderMethods, ServedCountries } from '@gateway/domain';

/**
 * The usual time to USDC of a provider that publishes none: 30 minutes, inside the 10 to 60 minutes
 * an on-ramp aggregator reports for most card purchases (and beside MoonPay's documented "about 20
 * minutes" for a returning customer). Labelled as assumed on the page; the gateway's own measure
 * replaces it once the provider has enough attempts (checkout-ranking).
 */
export const ASSUMED_TIME_TO_USDC: DocumentedMinutes = {
  minutes: 30,
  source: 'https://knowledge.onramper.com/how-long-does-it-take-to-receive-my-crypto',
  assumed: 'the provider publishes no usual time from payment to crypto delivered',
};

/**
 * A card, as the widget's preselected method: for a provider with no page of payment methods found,
 * the method the adapter asks its widget for (`page`: where the adapter's parameters are read).
 */
export const cardOnly = (page: string): ProviderMethods => ({ offered: [{ method: 'card' }], source: page });

/** No list of served countries found: the page says "unknown" for this provider, never "no". */
export const countriesNotFound = (searched: string): ServedCountries => ({ undocumented: searched });

/** The EU's 27 members (ISO 3166-1 alpha-2), for providers that document "the EU". */
export const EU_COUNTRIES = [
  'AT',
  'BE',
  'BG',
  'HR',
  'CY',
  'CZ',
  'DK',
  'EE',
  'FI',
  'FR',
  'DE',
  'GR',
  'HU',
  'IE',
  'IT',
  'LV',
  'LT',
  'LU',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SK',
  'SI',
  'ES',
  'SE',
] as const;
