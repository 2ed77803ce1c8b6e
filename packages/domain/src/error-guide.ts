import { ERROR_CODES, type ErrorCode } from './errors';

/**
 * What each error code means and what the merchant (or the shop's plugin, or its customer) should
 * do about it: docs/errors.md is written from this (`pnpm docs:errors`), and a test keeps the two
 * the same. Typed by ErrorCode, so a code added to ERROR_CODES without its entry fails the type check.
 */
export interface ErrorGuideEntry {
  /** When the gateway answers it. */
  readonly meaning: string;
  /** What to do: retry or not, what to change. */
  readonly action: string;
}

export const ERROR_GUIDE: Readonly<Record<ErrorCode, ErrorGuideEntry>> = {
  missing_parameter: {
    meaning: 'A required parameter is missing; `param` names it.',
    action: 'Add it (the message gives an example). Do not retry unchanged.',
  },
  invalid_parameter: {
    meaning: 'A parameter is present but not valid: an amount, a currency, an URL, a tolerance, a time range; `param` names it.',
    action: 'Fix the value as the message says. Do not retry unchanged.',
  },
  payout_address_not_accepted: {
    meaning: 'Process Payment (or the hosted checkout) was given a plain 0x address where it takes the encrypted `address_in`.',
    action: 'Send the `address_in` Create Wallet answered, URL-encoded, unchanged.',
  },
  invalid_address_in: {
    meaning: '`address` is not an `address_in` this gateway issued: altered, truncated, or from another gateway.',
    action: 'Call Create Wallet again and send its `address_in` unchanged (URL-encoded once).',
  },
  unknown_wallet: {
    meaning: 'The `address_in` opens, but no wallet of this gateway has that address (a database restored from before it).',
    action: 'Call Create Wallet again for the order.',
  },
  unsupported_provider: {
    meaning: '`provider` is not an id this gateway knows.',
    action: 'Use one of the ids the message lists (docs/providers.md).',
  },
  provider_not_offered: {
    meaning: 'A provider id this gateway knows (a plugin sends it) but does not offer: not configured here, or not integrated.',
    action: 'Choose another provider from the message, or ask the operator to configure this one.',
  },
  unsupported_currency: {
    meaning: '`currency` is an ISO 4217 code the gateway does not take (the message lists the ones it does).',
    action: 'Send the order in one of the listed currencies, converted with Convert to USD if needed.',
  },
  currency_not_allowed_for_provider: {
    meaning: "The provider takes only some currencies (Interac: CAD; Coinbase: four) and not the order's.",
    action: 'Send one of the currencies the message names, or choose another provider.',
  },
  amount_below_minimum: {
    meaning: "The order is below the provider's minimum (converted to the order's currency at the current rate, rounded up).",
    action: 'Raise the amount or choose another provider; the hosted checkout (pay.php) lists only those that take it.',
  },
  malformed_request: {
    meaning: 'The request itself cannot be read: a URL that is not valid percent-encoding, a bad header or request line.',
    action: 'Encode the URL correctly (each value once); check the HTTP client.',
  },
  unauthorized: {
    meaning: 'An admin route without the right `Authorization: Bearer <ADMIN_TOKEN>`.',
    action: "Send the operator's admin token. Not for merchants.",
  },
  address_not_allowed: {
    meaning:
      'A payout or affiliate address this gateway does not pay: the operator pinned the ones it does (PAYOUT_ADDRESSES, AFFILIATE_ADDRESSES).',
    action: 'Use the payout address the operator registered for your shop, or ask the operator to add yours.',
  },
  affiliate_disabled: {
    meaning: 'The affiliate endpoints are turned off on this gateway (AFFILIATE_WALLETS=off).',
    action: 'Use Create Wallet without an affiliate.',
  },
  affiliate_consent_required: {
    meaning: "Affiliate terms without the payout address owner's signature, for an affiliate the operator did not pin.",
    action: "Sign the terms with the payout address's key (the SDK's signAffiliateConsent) and send the signature.",
  },
  affiliate_consent_invalid: {
    meaning: 'The consent signature does not recover to the payout address over the requested terms.',
    action: "Sign exactly the terms sent (affiliate, shares, callback) with the payout address's key.",
  },
  payment_key_required: {
    meaning: "The checkout link or the second chance without the payment's key: only the browser that started the payment holds it.",
    action: 'For the customer: continue in the browser that started the payment, or start again from the shop.',
  },
  cross_site_request: {
    meaning: "A second chance posted from another site (its Origin or Sec-Fetch-Site is not this gateway's own).",
    action: "None for a real customer: the receipt page's own form is accepted.",
  },
  not_found: {
    meaning: 'No such thing: a path, a payment, a wallet for this `ipn_token`, a delivery.',
    action: 'Check the URL and the identifier; an `ipn_token` is the one Create Wallet answered.',
  },
  method_not_allowed: {
    meaning: 'The route exists but not for this HTTP method (the message names the allowed ones).',
    action: 'Use the method the message names.',
  },
  request_timeout: {
    meaning: 'The request was not received in time (a slow or stalled client).',
    action: 'Retry.',
  },
  conflict: {
    meaning:
      'The thing exists but is not in a state that allows this: a callback resent while it is still on its way, or before any was sent.',
    action: 'Read the message: it says when the current attempt is due, or why there is nothing to resend.',
  },
  callback_registered_elsewhere: {
    meaning:
      "The callback URL belongs to a wallet with another payout address: a callback is only ever fired by its own wallet's payments.",
    action: "Use a callback URL of your own (one per order, e.g. with your order number); never reuse another shop's.",
  },
  order_attempts_exhausted: {
    meaning: 'The order (`address_in`) has had ORDER_ATTEMPTS_MAX payment attempts.',
    action: 'A new order is a new link from the shop: call Create Wallet again.',
  },
  payload_too_large: {
    meaning: 'The request body is larger than the route takes.',
    action: "Send less; the gateway's API takes its parameters in the query.",
  },
  uri_too_long: {
    meaning: 'The URL (or a path segment of it) is longer than the gateway reads.',
    action: 'Check the parameters: a callback URL is at most 2,048 characters.',
  },
  unsupported_media_type: {
    meaning: 'A body in a content type the route does not read.',
    action: 'Send the content type the route documents (the API takes no body but for webhooks).',
  },
  rate_limited: {
    meaning: 'Too many requests from this client in the window.',
    action: 'Wait for `Retry-After` seconds, then retry.',
  },
  payout_quota_exceeded: {
    meaning: 'The payout address has had its quota of new wallets for this window (PAYOUT_WALLET_QUOTA_MAX).',
    action:
      'Wait for `Retry-After`; wallets that exist are still answered. Ask the operator for a larger quota if it is your normal volume.',
  },
  new_wallet_ceiling: {
    meaning: 'The whole gateway has made its most new wallets for this minute (NEW_WALLETS_PER_MINUTE), whoever asks.',
    action: 'Wait for `Retry-After`, then retry; wallets that exist are still answered.',
  },
  new_wallet_client_limit: {
    meaning: 'One client (an IPv4 address or an IPv6 /64) has had its new wallets for this minute (NEW_WALLETS_PER_CLIENT_PER_MINUTE).',
    action: 'Wait for `Retry-After`, then retry.',
  },
  headers_too_large: {
    meaning: "The request's headers are larger than the gateway reads.",
    action: 'Send fewer or smaller headers (cookies of another site on the same host, for instance).',
  },
  internal_error: {
    meaning: "A fault of the gateway's; it is logged with the request id.",
    action: 'Retry later; if it persists, give the operator the `x-request-id` header of the answer.',
  },
  provider_error: {
    meaning: 'The provider answered the checkout request with an error.',
    action: 'For the customer: try again or choose another provider. Nothing was charged.',
  },
  service_unavailable: {
    meaning: 'Something the gateway needs is unavailable right now (the database, Redis, exchange rates, a signing key).',
    action: 'Retry after `Retry-After` (when given) or a minute.',
  },
  provider_unavailable: {
    meaning: 'The provider could not be reached, or did not answer in time.',
    action: 'For the customer: try again or choose another provider. Nothing was charged.',
  },
};

/** docs/errors.md: every code with its HTTP status, meaning and what to do, in ERROR_CODES' order. */
export function errorGuideMarkdown(): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[]).map(
    (code) => `| \`${code}\` | ${ERROR_CODES[code]} | ${cell(ERROR_GUIDE[code].meaning)} | ${cell(ERROR_GUIDE[code].action)} |`,
  );
  return [
    '# Error codes',
    '',
    '<!-- Written by `pnpm docs:errors` from packages/domain/src/error-guide.ts; edit that file, not this one. -->',
    '',
    'Every error the gateway answers is JSON of one shape, `{"status":"error","code":"…","error":"…","param":"…"}`',
    '([API reference](api.md)): `code` is the stable part a plugin switches on, `error` says what to fix in words,',
    'and `param` names the parameter (or header) to blame, when one is. A 429 or 503 may carry `Retry-After`.',
    '',
    '| code | HTTP | when | what to do |',
    '|---|---:|---|---|',
    ...rows,
    '',
  ].join('\n');
}
