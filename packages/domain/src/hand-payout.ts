/**
 * A payout the operator made by hand: a deposit the gateway does not settle (the other USDC, held for
 * the operator) paid to its merchant straight from its temporary wallet, outside settlement. Before
 * it is recorded (`gateway deposits paid-by-hand`), the transaction's transfers are checked against
 * the deposit: its token, from its temporary wallet, to the wallet's payout address, and the merchant's
 * share as settlement would have split it (the fees stay in the wallet) or the whole deposit. Addresses
 * are compared lower-case; amounts are token base units.
 */

import { formatUsdc } from './money';
import { splitWalletDeposit, type WalletFeeTerms } from './fee-split';

/** What a hand payout of a deposit must match. */
export interface HandPayoutDeposit {
  /** The deposit's token contract. */
  token: string;
  amount: bigint;
  /** The temporary wallet it arrived in: the only sender a hand payout of it may have. */
  temporaryAddress: string;
  /** The wallet's payout address: the only recipient. */
  payoutAddress: string;
  terms: WalletFeeTerms;
}

/** One ERC-20 Transfer log of a transaction. */
export interface TokenTransfer {
  token: string;
  from: string;
  to: string;
  value: bigint;
  logIndex: number;
}

/** The amounts a hand payout of the deposit may move: the merchant's share, or all of it. */
export function handPayoutAmounts(deposit: Pick<HandPayoutDeposit, 'amount' | 'terms'>): { merchantShare: bigint; whole: bigint } {
  return { merchantShare: splitWalletDeposit(deposit.amount, deposit.terms).merchant, whole: deposit.amount };
}

export type HandPayoutCheck =
  | { result: 'matches'; transfer: TokenTransfer; paid: 'merchant_share' | 'whole_deposit' }
  | { result: 'refused'; reason: string };

/**
 * The transfer among `transfers` (one transaction's Transfer logs) that pays the deposit out by hand,
 * or why none does, in words for the operator: the first check every transfer fails names the problem.
 */
export function checkHandPayout(deposit: HandPayoutDeposit, transfers: readonly TokenTransfer[]): HandPayoutCheck {
  const token = deposit.token.toLowerCase();
  const from = deposit.temporaryAddress.toLowerCase();
  const to = deposit.payoutAddress.toLowerCase();
  const { merchantShare, whole } = handPayoutAmounts(deposit);
  const ofToken = transfers.filter((transfer) => transfer.token.toLowerCase() === token);
  if (ofToken.length === 0) return { result: 'refused', reason: `the transaction moves none of the deposit's token ${token}` };
  const fromWallet = ofToken.filter((transfer) => transfer.from.toLowerCase() === from);
  if (fromWallet.length === 0) {
    return { result: 'refused', reason: `no transfer of ${token} in it comes from the deposit's temporary wallet ${from}` };
  }
  const toPayout = fromWallet.filter((transfer) => transfer.to.toLowerCase() === to);
  if (toPayout.length === 0) {
    const recipients = [...new Set(fromWallet.map((transfer) => transfer.to.toLowerCase()))].join(', ');
    return { result: 'refused', reason: `it pays ${recipients}, not the wallet's payout address ${to}` };
  }
  for (const transfer of toPayout) {
    if (transfer.value === merchantShare) return { result: 'matches', transfer, paid: 'merchant_share' };
    if (transfer.value === whole) return { result: 'matches', transfer, paid: 'whole_deposit' };
  }
  const paid = toPayout.map((transfer) => formatUsdc(transfer.value)).join(', ');
  return {
    result: 'refused',
    reason:
      `it pays ${paid} to the payout address, neither the merchant's share (${formatUsdc(merchantShare)}) nor the whole ` +
      `deposit (${formatUsdc(whole)})`,
  };
}
