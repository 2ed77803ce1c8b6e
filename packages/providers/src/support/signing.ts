import { createHash, createHmac, timingSafeEqual, type BinaryLike, type KeyObject } from 'node:crypto';
import { ProviderWebhookError } from '../provider-contract';

/** The digests and MACs providers document, named by what they are, with the output encoding asked for. */

export type DigestEncoding = 'hex' | 'base64' | 'base64url';

export function hmacSha256(key: BinaryLike | KeyObject, message: BinaryLike, encoding: DigestEncoding): string {
  return createHmac('sha256', key).update(message).digest(encoding);
}

export function hmacSha512(key: BinaryLike | KeyObject, message: BinaryLike, encoding: DigestEncoding): string {
  return createHmac('sha512', key).update(message).digest(encoding);
}

export function sha256(message: BinaryLike, encoding: DigestEncoding): string {
  return createHash('sha256').update(message).digest(encoding);
}

export function sha512(message: BinaryLike, encoding: DigestEncoding): string {
  return createHash('sha512').update(message).digest(encoding);
}

/**
 * Compares a signature a caller sent with the one we computed, in time that does not depend on
 * where they differ. Different lengths are unequal at once (the length of a MAC is no secret).
 */
export function safeEqual(given: string | Buffer, expected: string | Buffer): boolean {
  const a = Buffer.isBuffer(given) ? given : Buffer.from(given, 'utf8');
  const b = Buffer.isBuffer(expected) ? expected : Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether a webhook's signed timestamp is close enough to now: a replay of an old, genuinely
 * signed body is refused, and so is one dated in the future beyond the same allowance (clock
 * skew). `timestamp` as the provider sends it, in `unit`.
 */
export function withinTolerance(
  timestamp: string | number,
  unit: 'seconds' | 'milliseconds',
  nowMs: number,
  toleranceSeconds: number,
): boolean {
  const text = String(timestamp);
  if (!/^\d{1,16}$/.test(text)) return false;
  const ms = unit === 'seconds' ? Number(text) * 1000 : Number(text);
  return Math.abs(nowMs - ms) <= toleranceSeconds * 1000;
}

/** Refuses a webhook whose signed time is not withinTolerance; `what` names that time in the refusal. */
export function refuseStale(
  what: string,
  timestamp: string | number,
  unit: 'seconds' | 'milliseconds',
  nowMs: number,
  toleranceSeconds: number,
): void {
  if (!withinTolerance(timestamp, unit, nowMs, toleranceSeconds)) {
    throw new ProviderWebhookError(`${what} is more than ${toleranceSeconds} s from now (a replay, or a clock far off)`);
  }
}

/** A header's single value: undefined when absent or sent more than once (a signature header is one value). */
export function singleHeader(headers: Readonly<Record<string, string | string[] | undefined>>, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return typeof value === 'string' ? value : undefined;
}
