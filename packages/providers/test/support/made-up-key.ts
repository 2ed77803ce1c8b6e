/**
 * A key in a provider's format (`<kind>_<mode>_<rest>`, as MoonPay's and Stripe's are) that no
 * account has. Written from its parts: a tracked literal in a live key's shape is what secret
 * scanners look for, and a made-up one must not look like a leak.
 */
export function madeUpKey(kind: string, mode: 'live' | 'test', rest: string): string {
  return [kind, mode, `MADEUPFORTESTS${rest}`].join('_');
}
