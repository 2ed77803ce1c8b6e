import { createHash } from 'node:crypto';
import { parseCallbackUrl, type CallbackUrlRules } from './callback-url';
import { GatewayError } from './errors';
import { parsePayoutAddress, type EvmAddress } from './evm-address';
import { parseCustomerPaysFee } from './fee-payer';
import { parseToleranceBps } from './order-state';

export interface WalletRequest {
  payoutAddress: EvmAddress;
  callbackUrl: string;
  /** Identity of the (payout, callback) pair: the case of the address does not matter, the URL's bytes do. */
  dedupeKey: Buffer;
  /**
   * order_tolerance_bps: the merchant's own tolerance for its orders, narrowing the operator's (never
   * widening it); null when not given, as the PayGate plugins never give it. Fixed with the wallet.
   */
  orderToleranceBps: number | null;
  /**
   * customer_pays_fee: 1, the customer pays the provider's fees on top (where the provider sells a fixed
   * amount of USDC) so the shop receives the order's full value; 0, the fees stay inside the order
   * amount; null when not given: the operator's CUSTOMER_PAYS_FEES decides. Fixed with the wallet.
   */
  customerPaysFee: boolean | null;
}

export interface WalletRequestRules extends CallbackUrlRules {
  tokenAddress: EvmAddress;
}

export function parseWalletRequest(
  query: { address: string; callback: string; order_tolerance_bps?: string; customer_pays_fee?: string },
  rules: WalletRequestRules,
): WalletRequest {
  const payoutAddress = parsePayoutAddress(query.address, rules);
  const callbackUrl = parseCallbackUrl(query.callback, rules);
  const orderToleranceBps =
    query.order_tolerance_bps === undefined ? null : parseToleranceBps(query.order_tolerance_bps, 'order_tolerance_bps');
  const customerPaysFee = query.customer_pays_fee === undefined ? null : parseCustomerPaysFee(query.customer_pays_fee);
  return {
    payoutAddress,
    callbackUrl,
    dedupeKey: walletDedupeKey(payoutAddress, callbackUrl),
    orderToleranceBps,
    customerPaysFee,
  };
}

export function walletDedupeKey(payoutAddress: string, callbackUrl: string): Buffer {
  return createHash('sha256').update(`${payoutAddress.toLowerCase()}\n${callbackUrl}`).digest();
}

/**
 * The 429 of Create Wallet (and its affiliate variants) once the whole gateway has made its
 * ceiling of new wallets this minute (NEW_WALLETS_PER_MINUTE), whoever asks: rotating payout
 * addresses and clients gets no further. Wallets that exist are still answered.
 */
export function newWalletCeilingReached(perMinute: number, retryAfterSeconds: number): GatewayError {
  return new GatewayError(
    'new_wallet_ceiling',
    `this gateway has made its most new wallets for this minute: ${perMinute} new wallets per minute (NEW_WALLETS_PER_MINUTE), ` +
      `across all payout addresses; ` +
      'wallets that exist are still answered. Try again after Retry-After',
    'callback',
    { retryAfterSeconds },
  );
}

/**
 * The 429 of Create Wallet (and its affiliate variants) for a payout address that has had its
 * quota of new wallets on this callback origin in this window. Counted per origin, so that
 * strangers using a shop's (public) payout address on callbacks of their own spend their own
 * window, never the shop's. Wallets it already has are still answered: only new ones wait.
 */
export function payoutQuotaExceeded(
  quota: { max: number; windowSeconds: number },
  callbackOrigin: string,
  retryAfterSeconds: number,
): GatewayError {
  return new GatewayError(
    'payout_quota_exceeded',
    `this payout address has had its quota of new wallets on ${callbackOrigin}: ${quota.max} new wallets per payout address and ` +
      `callback origin every ${quota.windowSeconds} s (PAYOUT_WALLET_QUOTA_MAX); ` +
      'the wallets it has are still answered. Try again after Retry-After, or ask the operator to raise the quota',
    'address',
    { retryAfterSeconds },
  );
}

/**
 * The 429 of Create Wallet (and its affiliate variants) for a client (an IPv4 address or an IPv6
 * /64, as the rate limiter counts it) that has made its budget of new wallets this minute: a
 * slice of the gateway-wide ceiling, so that no one client can take the whole minute from every
 * other shop. Wallets that exist are still answered.
 */
export function newWalletClientLimitReached(perMinute: number, retryAfterSeconds: number): GatewayError {
  return new GatewayError(
    'new_wallet_client_limit',
    `this client (your IP address, or its IPv6 /64) has made its most new wallets for this minute: ${perMinute} new wallets per ` +
      'minute from one client (NEW_WALLETS_PER_CLIENT_PER_MINUTE); wallets that exist are still answered. Try again after ' +
      'Retry-After; a shop server that needs more new orders a minute asks the operator to raise the setting',
    undefined,
    { retryAfterSeconds },
  );
}
