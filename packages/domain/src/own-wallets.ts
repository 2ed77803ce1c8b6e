import { invalidParameter, type GatewayError } from './errors';

/**
 * A payout or affiliate address must be a wallet outside the gateway. One of its own temporary
 * wallets would make one merchant's payouts (or an affiliate's share) arrive as "deposits" into
 * another merchant's wallet (forwarded again, a callback for a payment no customer made), or sit
 * there with no record: Create Wallet and the affiliate endpoints refuse it (param `address` or
 * `affiliate`), and the chain watcher never takes USDC sent from the gateway's own addresses for a
 * deposit.
 */
export function payoutToTemporaryWallet(param = 'address'): GatewayError {
  return invalidParameter(
    param,
    `${param} is a temporary receiving wallet of this gateway (a polygon_address_in), not a payout wallet; send the address of your ` +
      `own USDC wallet`,
  );
}
