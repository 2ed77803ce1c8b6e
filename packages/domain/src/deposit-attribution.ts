import { isTxHash } from './identifiers';

/**
 * Which attempt paid: one order (one temporary wallet) may be tried at several providers (a
 * second chance after a declined card), so a deposit into the wallet is credited to one attempt.
 * The attempt whose provider reported sending it (the transaction hash in its webhook) first;
 * otherwise the latest attempt created before the deposit was seen (the customer's most recent
 * try), leaving out attempts whose provider reported delivering another transaction.
 */

export interface PaymentAttempt {
  id: string;
  createdAt: Date;
  /** The transaction the provider reported sending the USDC in (deliveryTxHash); null when it reported none. */
  deliveredTxHash: string | null;
}

export interface AttributableDeposit {
  txHash: string;
  seenAt: Date;
}

/** A transaction hash a provider reports, lower-cased; undefined for anything that is not one (it is then ignored). */
export function deliveryTxHash(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const hash = value.trim().toLowerCase();
  return isTxHash(hash) ? hash : undefined;
}

/** The id of the attempt credited with `deposit`, or null when none reported it and none had started before it was seen. */
export function attemptThatPaid(deposit: AttributableDeposit, attempts: readonly PaymentAttempt[]): string | null {
  const txHash = deposit.txHash.toLowerCase();
  const reported = attempts.find((attempt) => attempt.deliveredTxHash === txHash);
  if (reported) return reported.id;
  let latest: PaymentAttempt | null = null;
  for (const attempt of attempts) {
    if (attempt.deliveredTxHash !== null || attempt.createdAt.getTime() > deposit.seenAt.getTime()) continue;
    if (latest === null || attempt.createdAt.getTime() > latest.createdAt.getTime()) latest = attempt;
  }
  return latest?.id ?? null;
}
