import { createHash } from 'node:crypto';
import type { EvmAddress } from '../src/evm-address';
import { payoutToTemporaryWallet } from '../src/own-wallets';
import {
  newWalletCeilingReached,
  newWalletClientLimitReached,
  parseWalletRequest,
  payoutQuotaExceeded,
  walletDedupeKey,
} from '../src/wallet-request';

const payout = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const callback = 'https://shop.io/ipn?order_id=1';
const rules = { tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' as EvmAddress, allowTestDomains: false };

describe('the identity of a (payout, callback) pair', () => {
  it('is SHA-256 of the lower-case address, a line feed and the URL: the form stored in every wallet row', () => {
    const expected = createHash('sha256').update(`${payout.toLowerCase()}\n${callback}`).digest();
    expect(walletDedupeKey(payout, callback).equals(expected)).toBe(true);
    expect(parseWalletRequest({ address: payout.toLowerCase(), callback }, rules).dedupeKey.equals(expected)).toBe(true);
  });

  it('ignores the case of the address, not the bytes of the URL', () => {
    const key = walletDedupeKey(payout, callback);
    expect(walletDedupeKey(payout.toLowerCase(), callback).equals(key)).toBe(true);
    expect(walletDedupeKey(payout, callback.replace('order_id=1', 'order_id=2')).equals(key)).toBe(false);
    expect(walletDedupeKey(payout, callback.replace('ipn', 'IPN')).equals(key)).toBe(false);
  });
});

describe('Create Wallet refusals', () => {
  it('a payout quota reached is a 429 on the address naming the callback origin, with Retry-After', () => {
    expect(payoutQuotaExceeded({ max: 50, windowSeconds: 3600 }, 'https://shop.io', 12.5)).toMatchObject({
      code: 'payout_quota_exceeded',
      statusCode: 429,
      param: 'address',
      retryAfterSeconds: 13,
      message:
        'this payout address has had its quota of new wallets on https://shop.io: 50 new wallets per payout address and callback ' +
        'origin every 3600 s (PAYOUT_WALLET_QUOTA_MAX); ' +
        'the wallets it has are still answered. Try again after Retry-After, or ask the operator to raise the quota',
    });
  });

  it("a client's budget of new wallets reached is a 429 with Retry-After, naming the setting and what to do", () => {
    const refusal = newWalletClientLimitReached(60, 30.5);
    expect(refusal).toMatchObject({ code: 'new_wallet_client_limit', statusCode: 429, retryAfterSeconds: 31 });
    expect(refusal.param).toBeUndefined();
    expect(refusal.message).toBe(
      'this client (your IP address, or its IPv6 /64) has made its most new wallets for this minute: 60 new wallets per minute from ' +
        'one client (NEW_WALLETS_PER_CLIENT_PER_MINUTE); wallets that exist are still answered. Try again after Retry-After; a shop ' +
        'server that needs more new orders a minute asks the operator to raise the setting',
    );
  });

  it('the gateway-wide ceiling reached is a 429 with Retry-After, naming the setting', () => {
    expect(newWalletCeilingReached(600, 0.2)).toMatchObject({
      code: 'new_wallet_ceiling',
      statusCode: 429,
      param: 'callback',
      retryAfterSeconds: 1,
      message:
        'this gateway has made its most new wallets for this minute: 600 new wallets per minute (NEW_WALLETS_PER_MINUTE), across all ' +
        'payout addresses; ' +
        'wallets that exist are still answered. Try again after Retry-After',
    });
  });

  it("one of the gateway's own temporary wallets is no payout address, for the address or the affiliate", () => {
    const message = (param: string) =>
      `${param} is a temporary receiving wallet of this gateway (a polygon_address_in), not a payout wallet; send the address of your ` +
      `own USDC wallet`;
    expect(payoutToTemporaryWallet()).toMatchObject({
      code: 'invalid_parameter',
      statusCode: 400,
      param: 'address',
      message: message('address'),
    });
    expect(payoutToTemporaryWallet('affiliate')).toMatchObject({ param: 'affiliate', message: message('affiliate') });
  });
});
