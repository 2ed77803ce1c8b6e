// USDC as the gateway writes it: a plain decimal with at most 6 decimals (the token's base unit).
const USDC_AMOUNT = /^(\d{1,15})(?:\.(\d{1,6}))?$/;

/** A USDC decimal string as base units (6 decimals), exactly; undefined when it is not one. */
export function usdcBaseUnits(amount: unknown): bigint | undefined {
  if (typeof amount !== 'string') return undefined;
  const match = USDC_AMOUNT.exec(amount);
  if (!match) return undefined;
  return BigInt(match[1]!) * 1_000_000n + BigInt((match[2] ?? '').padEnd(6, '0'));
}
