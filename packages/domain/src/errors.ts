/**
 * Every error the gateway answers with. The wire shape is
 * `{"status":"error","code":<code>,"error":<message>,"param":<name>}`; the code is the stable,
 * machine-readable part that plugins can switch on.
 */
export const ERROR_CODES = {
  missing_parameter: 400,
  invalid_parameter: 400,
  payout_address_not_accepted: 400,
  invalid_address_in: 400,
  unknown_wallet: 400,
  unsupported_provider: 400,
  /** A provider id this gateway knows (a plugin sends it) but does not offer: not configured here, or not integrated. */
  provider_not_offered: 400,
  unsupported_currency: 400,
  currency_not_allowed_for_provider: 400,
  amount_below_minimum: 400,
  /** The request itself cannot be read: a URL that is not valid percent-encoding, a bad header or request line. */
  malformed_request: 400,
  unauthorized: 401,
  /** A payout or affiliate address this gateway does not pay (PAYOUT_ADDRESSES, AFFILIATE_ADDRESSES pin the ones it does). */
  address_not_allowed: 403,
  /** The affiliate endpoints are turned off on this gateway (AFFILIATE_WALLETS=off). */
  affiliate_disabled: 403,
  /** Affiliate terms without the payout address owner's signature, and an affiliate the operator did not pin (AFFILIATE_ADDRESSES). */
  affiliate_consent_required: 403,
  /** A consent signature that does not recover to the payout address over the requested terms. */
  affiliate_consent_invalid: 403,
  /** The checkout link or the second chance without the payment's key: only the browser that started the payment holds it. */
  payment_key_required: 403,
  /** A second chance posted from another site (Origin or Sec-Fetch-Site not this gateway's own). */
  cross_site_request: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  /** The callback URL belongs to a wallet with another payout address: a callback is only ever fired by its own wallet's payments. */
  callback_registered_elsewhere: 409,
  /** The order (address_in) has had ORDER_ATTEMPTS_MAX payment attempts: a new order is a new link from the shop. */
  order_attempts_exhausted: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  rate_limited: 429,
  /** The payout address has had its quota of new wallets for this window (PAYOUT_WALLET_QUOTA_MAX). */
  payout_quota_exceeded: 429,
  new_wallet_ceiling: 429,
  /** One client (IPv4 address or IPv6 /64) has had its new wallets for this minute (NEW_WALLETS_PER_CLIENT_PER_MINUTE). */
  new_wallet_client_limit: 429,
  headers_too_large: 431,
  internal_error: 500,
  /** The provider answered the checkout request with an error. */
  provider_error: 502,
  service_unavailable: 503,
  /** The provider could not be reached, or did not answer in time. */
  provider_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class GatewayError extends Error {
  readonly statusCode: number;
  /** For a 503 (or 429): when a retry may succeed, sent as the Retry-After header. */
  readonly retryAfterSeconds?: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    options: { retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'GatewayError';
    this.statusCode = ERROR_CODES[code];
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = Math.max(1, Math.ceil(options.retryAfterSeconds));
  }

  toBody(): ErrorBody {
    return errorBody(this.code, this.message, this.param);
  }
}

/** The one shape of every error answer; its schema for responses and the API docs is `errorBodySchema` in `@gateway/http`. */
export interface ErrorBody {
  status: 'error';
  code: ErrorCode;
  error: string;
  /** The query parameter (or header) to fix, when one is to blame. */
  param?: string;
}

export function errorBody(code: ErrorCode, error: string, param?: string): ErrorBody {
  return { status: 'error', code, error, ...(param ? { param } : {}) };
}

export function invalidParameter(param: string, message: string): GatewayError {
  return new GatewayError('invalid_parameter', message, param);
}
