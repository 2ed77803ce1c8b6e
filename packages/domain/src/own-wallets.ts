import { invalidParameter, type GatewayError } from './errors';

/**
 * A payout address must be a wallet outside the gateway. One of its own temporary wallets would
 * make one merchant's payouts arrive as "deposits" into another merchant's wallet (forwarded
 * again, a callback for a payment no customer made): Create Wallet refuses it, and the chain
 * watcher never takes USDC sent from the gateway's own addresses for a deposit.
 */
export function payoutToTemporaryWallet(param = 'address'): GatewayError {
  return invalidParameter(
    param,
    `${param} is a temporary receiving wallet of this gateway (a polygon_address_in), not a payout wallet; send the address of your own USDC wallet`,
  );
}
