import type { DocumentedFees } from '@gateway/domain';

/**
 * The card fee range of a provider that publishes none (no figure on its pages, or none found):
 * 3 % to 5 %, where the card on-ramps that do publish theirs lie (MoonPay up to 4.5 %, Ramp
 * Network up to 3.9 % in USD and 5.45 % in other currencies). Wide on purpose: an estimate from
 * it is judged with half its spread as extra tolerance (expectUsdc).
 */
export const ASSUMED_CARD_FEES: DocumentedFees = { minBps: 300, maxBps: 500 };
