/**
 * What a provider's signed webhook reports enters the gateway here, made fit to store and to show.
 * A signature proves who sent a body, not that its strings are sane: a provider (or whoever holds
 * its key) may send NUL bytes, which PostgreSQL refuses in text, other control characters, strings
 * of megabytes, or a number where a string belongs. Every such value is answered like any other
 * (never a 500, which the provider would retry for days): an identifier that is not plain text
 * names nothing, free text loses its control characters, and everything is cut to its column's size.
 */

/** The longest value kept of each field; identifiers are cut to the size they were recorded with. */
export const PROVIDER_REPORT_LIMITS = { identifier: 200, rawStatus: 100, reason: 200 } as const;

// C0 controls (NUL among them), DEL and the C1 controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
// A run of them with the spaces around it, which becomes one space.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL_RUN = /\s*[\u0000-\u001f\u007f-\u009f][\s\u0000-\u001f\u007f-\u009f]*/g;

/** Cuts to `max` UTF-16 units without leaving half of a surrogate pair at the end. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = text.charCodeAt(max - 1);
  return text.slice(0, end >= 0xd800 && end <= 0xdbff ? max - 1 : max);
}

/**
 * An identifier a provider sent (its order id, our payment id echoed back, a wallet address):
 * a non-empty string without control characters, cut to `max`; anything else is undefined (it
 * names no payment, and is never written).
 */
export function providerIdentifier(value: unknown, max: number = PROVIDER_REPORT_LIMITS.identifier): string | undefined {
  if (typeof value !== 'string') return undefined;
  const kept = cut(value, max);
  return kept === '' || CONTROL_CHARACTER.test(kept) ? undefined : kept;
}

/**
 * Free text a provider sent (its status word, why a card was declined): each run of control
 * characters becomes one space, the ends are trimmed, and it is cut to `max`; undefined when
 * nothing printable is left or it is not a string.
 */
export function providerText(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Only the first few `max` characters can survive: a huge string is not scanned whole.
  const kept = cut(
    cut(value, max * 4)
      .replace(CONTROL_RUN, ' ')
      .trim(),
    max,
  ).trimEnd();
  return kept === '' ? undefined : kept;
}
