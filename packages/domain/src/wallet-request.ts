import { createHash } from 'node:crypto';
import { parseCallbackUrl, type CallbackUrlRules } from './callback-url';
import { parsePayoutAddress, type EvmAddress } from './evm-address';

export interface WalletRequest {
  payoutAddress: EvmAddress;
  callbackUrl: string;
  /** Identity of the (payout, callback) pair: the case of the address does not matter, the URL's bytes do. */
  dedupeKey: Buffer;
}

export interface WalletRequestRules extends CallbackUrlRules {
  tokenAddress: EvmAddress;
}

export function parseWalletRequest(query: { address: string; callback: string }, rules: WalletRequestRules): WalletRequest {
  const payoutAddress = parsePayoutAddress(query.address, rules);
  const callbackUrl = parseCallbackUrl(query.callback, rules);
  return { payoutAddress, callbackUrl, dedupeKey: walletDedupeKey(payoutAddress, callbackUrl) };
}

export function walletDedupeKey(payoutAddress: string, callbackUrl: string): Buffer {
  return createHash('sha256').update(`${payoutAddress.toLowerCase()}\n${callbackUrl}`).digest();
}
