import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { randomBytesFromPool } from './random-bytes';

/**
 * A payment's key: what lets a browser act on a payment (open its checkout link, take its second
 * chance), where the payment id only lets it look (the receipt). The id is in the receipt URL that
 * every provider is given as its return URL, and the customer may share it; the key is handed to
 * the browser that started the payment alone (a cookie scoped to the payment's path), and to a
 * JSON client in the checkout link it passes on. The database keeps its SHA-256 only.
 */

/** The cookie that holds a payment's key, scoped to /payment/<id> (so each payment has its own). */
export const PAYMENT_KEY_COOKIE = 'payment_key';

/** How long the browser keeps a payment's key: the provider's return, and a second chance, come within days. */
export const PAYMENT_KEY_COOKIE_MAX_AGE_SECONDS = 7 * 86_400;

const KEY_BYTES = 32;
const KEY_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface IssuedPaymentKey {
  /** Base64url, 43 characters: for the customer's browser only. */
  key: string;
  /** What the database stores. */
  hash: Buffer;
}

export function issuePaymentKey(): IssuedPaymentKey {
  const key = Buffer.from(randomBytesFromPool(KEY_BYTES)).toString('base64url');
  return { key, hash: paymentKeyHash(key) };
}

export function paymentKeyHash(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/**
 * The hashes of the keys that act on a payment: the one its browser was given and, once a recovery
 * e-mail went out (recovery-email.ts), the one its link carries. null: a payment recorded before
 * keys existed, which no key acts on.
 */
export type PaymentKeyHashes = Buffer | null | readonly Buffer[];

function hashList(hashes: PaymentKeyHashes): readonly Buffer[] {
  if (hashes === null) return [];
  return Buffer.isBuffer(hashes) ? [hashes] : (hashes as readonly Buffer[]);
}

/**
 * Whether one of the keys a request presents (its cookies, the link's query) is the payment's.
 * A payment with no hash (recorded before keys existed) matches none.
 */
export function paymentKeyMatches(presented: readonly string[], hashes: PaymentKeyHashes): boolean {
  const accepted = hashList(hashes);
  return presented.some((key) => KEY_SHAPE.test(key) && accepted.some((hash) => timingSafeEqual(paymentKeyHash(key), hash)));
}

/**
 * The second-chance form's hidden field: derived from the key (which the page never shows: the
 * cookie is HttpOnly), so a form posted from anywhere but a page rendered for the key's holder
 * lacks it, whatever the browser does with the cookie.
 */
export function secondChanceFormToken(key: string, paymentId: string): string {
  return createHmac('sha256', key).update(`second-chance:${paymentId}`).digest('base64url');
}

/** The key among `presented` that is the payment's, if any. */
export function matchingPaymentKey(presented: readonly string[], hash: PaymentKeyHashes): string | undefined {
  return presented.find((key) => paymentKeyMatches([key], hash));
}

/** Whether `token` is the form token of one of the presented keys that is the payment's. */
export function secondChanceFormTokenMatches(
  token: string,
  presented: readonly string[],
  hash: PaymentKeyHashes,
  paymentId: string,
): boolean {
  const key = matchingPaymentKey(presented, hash);
  if (!key || !KEY_SHAPE.test(token)) return false;
  return timingSafeEqual(Buffer.from(secondChanceFormToken(key, paymentId)), Buffer.from(token));
}

/** Every value of the cookie `name` in a Cookie header (several cookie paths may each send one). */
export function cookieValues(header: string | undefined, name: string): string[] {
  if (!header) return [];
  const values: string[] = [];
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    values.push(pair.slice(eq + 1).trim());
  }
  return values;
}
