/**
 * Which attempt paid: one order (one temporary wallet) may be tried at several providers (a
 * second chance after a declined card), so a deposit into the wallet is credited to one attempt:
 * the latest created before the deposit was seen (the customer's most recent try). No provider
 * webhook records the transaction it sent yet; once one does, that report should decide first.
 */

export interface PaymentAttempt {
  id: string;
  createdAt: Date;
}

export interface AttributableDeposit {
  seenAt: Date;
}

/** The id of the attempt credited with `deposit`, or null when no attempt had started before it was seen. */
export function attemptThatPaid(deposit: AttributableDeposit, attempts: readonly PaymentAttempt[]): string | null {
  let latest: PaymentAttempt | null = null;
  for (const attempt of attempts) {
    if (attempt.createdAt.getTime() > deposit.seenAt.getTime()) continue;
    if (latest === null || attempt.createdAt.getTime() > latest.createdAt.getTime()) latest = attempt;
  }
  return latest?.id ?? null;
}
