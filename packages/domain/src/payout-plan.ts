/**
 * The payout plan of a deposit: which legs its temporary wallet pays, to whom and how much, all
 * derived from the wallet's terms (its payout address, affiliate address and shares, the platform
 * fee it records) and the platform's fee address. Settlement plans with it, and before it signs
 * or sends anything for a leg it derives the plan again and compares: a leg whose row says
 * anything else (rewritten by whoever could write to `payouts`) is refused, never signed.
 * Addresses are compared lower-case; amounts are token base units.
 */

import { splitWalletDeposit, type PayoutLegKind, type WalletFeeTerms } from './fee-split';

/** Who each kind of leg pays. */
export interface PayoutRecipients {
  /** The wallet's payout address. */
  merchant: string;
  /** PLATFORM_FEE_ADDRESS. */
  platform: string;
  /** The wallet's affiliate address; null for a wallet without an affiliate. */
  affiliate: string | null;
}

/** One leg: from the temporary wallet to a recipient. */
export interface PlannedLeg {
  kind: PayoutLegKind;
  /** Lower-case hex. */
  from: string;
  /** Lower-case hex. */
  to: string;
  amount: bigint;
}

/**
 * The legs that pay `payable` (a deposit plus the held dust its payout sweeps) out of the temporary
 * wallet `from`, split by the wallet's terms, in the order they are sent (the merchant first).
 */
export function payoutPlan(payable: bigint, from: string, terms: WalletFeeTerms, recipients: PayoutRecipients): PlannedLeg[] {
  return splitWalletDeposit(payable, terms).legs.map(({ kind, amount }) => {
    const to = recipients[kind];
    // The schema pairs an affiliate share with its address (wallets_affiliate_pair).
    if (to === null) throw new Error(`the wallet has an affiliate share but no affiliate address`);
    return { kind, from: from.toLowerCase(), to: to.toLowerCase(), amount };
  });
}

/**
 * Why a leg on record is not the leg the plan has for its kind, in words for the operator; undefined
 * when it is exactly that leg.
 */
export function legMismatch(plan: readonly PlannedLeg[], leg: PlannedLeg): string | undefined {
  const planned = plan.find((candidate) => candidate.kind === leg.kind);
  if (!planned) return `the wallet's terms have no ${leg.kind} leg, yet one pays ${leg.amount} base units to ${leg.to.toLowerCase()}`;
  const problems: string[] = [];
  if (leg.from.toLowerCase() !== planned.from)
    problems.push(`pays from ${leg.from.toLowerCase()}, not the deposit's temporary wallet ${planned.from}`);
  if (leg.to.toLowerCase() !== planned.to) problems.push(`pays ${leg.to.toLowerCase()}, where the wallet's terms say ${planned.to}`);
  if (leg.amount !== planned.amount) problems.push(`pays ${leg.amount} base units, where the wallet's terms say ${planned.amount}`);
  return problems.length > 0 ? `the ${leg.kind} leg ${problems.join(' and ')}` : undefined;
}
