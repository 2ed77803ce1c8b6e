import type { ProviderTerms } from '@gateway/domain';

const terms = (id: string, displayName: string, currency: ProviderTerms['currency'], minimum: string): ProviderTerms => ({
  id,
  displayName,
  currency,
  minimum,
  minimumCurrency: currency === 'any' ? 'USD' : currency,
});

/** The specification's table of providers, in its order: the hosted checkout lists them so, the others after. */
export const SPECIFICATION_ORDER: readonly string[] = [
  'wert',
  'stripe',
  'robinhood',
  'transak',
  'moonpay',
  'rampnetwork',
  'guardarian',
  'particle',
  'coinbase',
  'sardine',
  'banxa',
  'utorg',
  'simplex',
  'alchemypay',
  'mercuryo',
  'topper',
  'unlimit',
  'transfi',
  'interac',
  'upi',
];

/**
 * Providers of the specification's table whose checkout is a server-side session (part 2 of the
 * on-ramp work adds their adapters). Until then only the sandbox can stand in for them, on a
 * local stack; a production gateway does not offer them.
 */
export const SESSION_PROVIDERS_TO_COME: readonly ProviderTerms[] = [
  terms('wert', 'Wert', 'USD', '1'),
  terms('robinhood', 'Robinhood', 'USD', '5'),
  terms('guardarian', 'Guardarian', 'any', '20'),
  terms('coinbase', 'Coinbase', 'any', '2'),
  terms('sardine', 'Sardine', 'any', '30'),
  terms('simplex', 'Simplex', 'any', '50'),
  terms('transfi', 'TransFi', 'USD', '70'),
];

export const SESSION_PROVIDER_NOT_YET = 'its integration (a server-side checkout session) is not in this version of the gateway';

/**
 * Identifiers the PayGate-style WooCommerce and WHMCS plugins send that this gateway has no
 * integration for: Process Payment answers them with `provider_not_offered` and the reason, so a
 * merchant reads "not offered here" rather than a typo.
 */
export const PLUGIN_PROVIDERS_NOT_INTEGRATED: readonly { id: string; displayName: string; reason: string }[] = [
  { id: 'paypal', displayName: 'PayPal', reason: 'PayPal is not a card on-ramp this gateway integrates' },
  { id: 'binance', displayName: 'Binance', reason: 'no integration for Binance in this gateway' },
  { id: 'bitnovo', displayName: 'Bitnovo', reason: 'no integration for Bitnovo in this gateway' },
  {
    id: 'werteur',
    displayName: 'Wert (EUR)',
    reason: "Wert's euro checkout is not integrated; Wert is offered in USD as provider=wert where configured",
  },
  { id: 'simpleswap', displayName: 'SimpleSwap', reason: 'no integration for SimpleSwap in this gateway' },
  { id: 'changenow', displayName: 'ChangeNOW', reason: 'no integration for ChangeNOW in this gateway' },
  { id: 'itez', displayName: 'Itez', reason: 'no integration for Itez in this gateway' },
  { id: 'finchpay', displayName: 'FinchPay', reason: 'no integration for FinchPay in this gateway' },
  { id: 'switchere', displayName: 'Switchere', reason: 'no integration for Switchere in this gateway' },
  { id: 'kryptonim', displayName: 'Kryptonim', reason: 'no integration for Kryptonim in this gateway' },
  { id: 'cryptix', displayName: 'Cryptix', reason: 'no integration for Cryptix in this gateway' },
];
