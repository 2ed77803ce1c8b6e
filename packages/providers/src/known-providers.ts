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
 * Identifiers this gateway knows and never offers: those the PayGate-style WooCommerce and WHMCS
 * plugins send that it has no integration for, providers that closed, and one of the specification's
 * whose documented flow cannot deliver a card payment's USDC on Polygon to our wallet (Robinhood
 * Connect). Process Payment answers
 * them with `provider_not_offered` and the reason, so a merchant reads "not offered here" rather
 * than a typo, and no customer is sent to them.
 */
export const PROVIDERS_NOT_OFFERED: readonly { id: string; displayName: string; reason: string }[] = [
  {
    id: 'kado',
    displayName: 'Kado',
    reason: 'Kado shut down in 2025 and takes no more orders; its integration was removed',
  },
  {
    id: 'robinhood',
    displayName: 'Robinhood',
    reason:
      "Robinhood Connect moves crypto out of the customer's own Robinhood account (US residents with a verified account), " +
      'not a card payment by a guest; its partner API is documented to approved partners only, and no public page confirms USDC on Polygon',
  },
  {
    id: 'bitnovo',
    displayName: 'Bitnovo',
    reason: 'Bitnovo documents only Bitnovo Pay, which takes payments in crypto: no card on-ramp delivering USDC on Polygon to an address',
  },
  {
    id: 'simpleswap',
    displayName: 'SimpleSwap',
    reason: "SimpleSwap's public API exchanges crypto for crypto; it documents no card on-ramp API of its own",
  },
  {
    id: 'changenow',
    displayName: 'ChangeNOW',
    reason:
      "ChangeNOW's API has a card on-ramp, but Guardarian runs it (Guardarian takes the card and sends the crypto): " +
      'use guardarian, integrated here directly; this gateway has no ChangeNOW integration of its own',
  },
  { id: 'itez', displayName: 'Itez', reason: 'no integration for Itez in this gateway' },
  { id: 'finchpay', displayName: 'FinchPay', reason: 'no integration for FinchPay in this gateway' },
  { id: 'switchere', displayName: 'Switchere', reason: 'no integration for Switchere in this gateway' },
  { id: 'kryptonim', displayName: 'Kryptonim', reason: 'no integration for Kryptonim in this gateway' },
  { id: 'cryptix', displayName: 'Cryptix', reason: 'no integration for Cryptix in this gateway' },
];
