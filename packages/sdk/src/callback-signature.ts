import { createPrivateKey, createPublicKey, KeyObject, sign, verify, type JsonWebKey } from 'node:crypto';

export const CALLBACK_SIGNATURE_HEADER = 'x-gateway-signature';
export const CALLBACK_DELIVERY_ID_HEADER = 'x-gateway-delivery-id';

export const DEFAULT_TOLERANCE_SECONDS = 300;

const ED25519_SIGNATURE_BYTES = 64;
// The gateway sends one v1 and one v2 per signing key (two of each during a rotation); a cap per
// scheme keeps a hostile header from making the verifier run thousands of signature checks.
const MAX_SIGNATURES = 8;
// Canonical decimal only, so the number printed back is the exact text that was signed.
const UNIX_SECONDS = /^(0|[1-9]\d{0,14})$/;
// The gateway's delivery ids are UUIDs. No "." (the separator of the signed text), no "," or space
// (two headers folded into one), so the signed text splits into t, id and URL one way only.
const DELIVERY_ID = /^[A-Za-z0-9_-]{1,128}$/;

export type CallbackSignatureScheme = 'v1' | 'v2';

export interface CallbackSigningKey {
  /** Only used to name the key in error messages; the header does not carry key ids. */
  keyId?: string;
  /** An Ed25519 private key, as a KeyObject or PEM text. */
  key: KeyObject | string;
}

export interface SignCallbackInput {
  /** The full callback URL exactly as it is sent. */
  url: string;
  /**
   * The `x-gateway-delivery-id` sent with the callback. With it, every key also signs `v2` over
   * `t.deliveryId.url`; without it only `v1` (over `t.url`) is produced.
   */
  deliveryId?: string;
  privateKeys: readonly CallbackSigningKey[];
  /** Unix seconds; defaults to now. */
  timestamp?: number;
}

/** An Ed25519 public key as a KeyObject, PEM text or a JWK (e.g. from `/.well-known/jwks.json`). */
export type CallbackPublicKey = KeyObject | string | JsonWebKey;

export interface VerifyCallbackSignatureInput {
  /** The full URL the request was sent to, exactly as received (path and query untouched). */
  url: string;
  /** The `x-gateway-signature` header; Node's `req.headers[...]` can be passed as is. */
  header: string | readonly string[] | undefined;
  /**
   * The `x-gateway-delivery-id` header, as received (Node's `req.headers[...]` can be passed as is).
   * Needed to verify `v2`, which covers it: a callback replayed under another delivery id fails.
   */
  deliveryId?: string | readonly string[] | undefined;
  publicKeys: readonly CallbackPublicKey[];
  /**
   * Refuse a header without `v2` (`reason: 'v2_required'`) instead of falling back to `v1`. Set it
   * once your gateway sends v2: otherwise someone who strips the v2 entries from a captured header
   * is checked against v1 alone, which does not cover the delivery id. It becomes the default
   * when v1 is retired.
   */
  requireV2?: boolean;
  /** How far the signature time may be from now, in either direction. */
  toleranceSeconds?: number;
  /** Unix seconds; defaults to now. */
  now?: number;
}

export type CallbackSignatureFailure =
  | 'malformed_header'
  | 'timestamp_out_of_tolerance'
  | 'no_matching_signature'
  /** The header has a v2 signature but the delivery id header is missing or not a delivery id. */
  | 'invalid_delivery_id'
  /** `requireV2` is set and the header has no v2 signature. */
  | 'v2_required';

export type VerifyCallbackSignatureResult =
  | {
      ok: true;
      timestamp: number;
      /** Which signature verified: `v2` covers the delivery id, `v1` only the URL and time. */
      scheme: CallbackSignatureScheme;
      /** With `v2`: the verified delivery id, the one to deduplicate on. */
      deliveryId?: string;
    }
  | { ok: false; reason: CallbackSignatureFailure };

export interface ParsedSignatureHeader {
  timestamp: number;
  /** Base64 Ed25519 signatures over `t.url`, one per signing key (deprecated scheme). */
  v1: string[];
  /** Base64 Ed25519 signatures over `t.deliveryId.url`, one per signing key. */
  v2: string[];
}

/**
 * `t=<unix seconds>,v1=<sig>,v2=<sig>[,v1=…,v2=…]`: per key (newest first) a v1 over `t.url` and,
 * given the delivery id, a v2 over `t.deliveryId.url`, so merchants survive a key rotation and
 * verifiers that predate v2 keep working.
 */
export function signCallback({ url, deliveryId, privateKeys, timestamp = nowInSeconds() }: SignCallbackInput): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`timestamp must be a non-negative integer of unix seconds, got ${timestamp}`);
  }
  if (deliveryId !== undefined && !DELIVERY_ID.test(deliveryId)) {
    throw new RangeError('deliveryId must be 1 to 128 letters, digits, _ or - (a UUID)');
  }
  if (privateKeys.length === 0) throw new RangeError('at least one signing key is required');
  const signedV1 = signedBytes('v1', timestamp, url);
  const signedV2 = deliveryId === undefined ? undefined : signedBytes('v2', timestamp, url, deliveryId);
  const signatures = privateKeys.flatMap(({ keyId, key }) => {
    const privateKey = typeof key === 'string' ? createPrivateKey(key) : key;
    if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') {
      throw new TypeError(`signing key ${keyId ?? '(no key id)'} is not an Ed25519 private key`);
    }
    const v1 = `v1=${sign(null, signedV1, privateKey).toString('base64')}`;
    return signedV2 === undefined ? [v1] : [v1, `v2=${sign(null, signedV2, privateKey).toString('base64')}`];
  });
  return [`t=${timestamp}`, ...signatures].join(',');
}

/** Undefined when the header is not a well-formed signature header; never throws. */
export function parseSignatureHeader(header: unknown): ParsedSignatureHeader | undefined {
  if (typeof header !== 'string') return undefined;
  let timestamp: number | undefined;
  const signatures: Record<CallbackSignatureScheme, string[]> = { v1: [], v2: [] };
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator === -1) return undefined;
    const name = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (name === 't') {
      if (timestamp !== undefined || !UNIX_SECONDS.test(value)) return undefined;
      timestamp = Number(value);
    } else if (name === 'v1' || name === 'v2') {
      if (!isCanonicalEd25519Signature(value)) return undefined;
      signatures[name].push(value);
    }
    // Other names are skipped so a future scheme (v3=…) can be sent next to these.
  }
  const { v1, v2 } = signatures;
  if (timestamp === undefined || v1.length + v2.length === 0) return undefined;
  if (v1.length > MAX_SIGNATURES || v2.length > MAX_SIGNATURES) return undefined;
  return { timestamp, v1, v2 };
}

/**
 * Accepts when a signature verifies with any of the keys: a `v2` (which covers the delivery id)
 * when the header has any, `v1` only when it has none (an older gateway) and `requireV2` is not set.
 * A failing v2 never falls back to v1. Every signature-key pair of the scheme is checked, so the time
 * taken does not depend on which one matched. Throws only for a key that is not an Ed25519 public
 * key (a configuration error), never because of what the request carries.
 */
export function verifyCallbackSignature({
  url,
  header,
  deliveryId,
  publicKeys,
  requireV2 = false,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
  now = nowInSeconds(),
}: VerifyCallbackSignatureInput): VerifyCallbackSignatureResult {
  const keys = publicKeys.map(toEd25519PublicKey);
  const parsed = parseSignatureHeader(header);
  if (parsed === undefined) return { ok: false, reason: 'malformed_header' };
  // Written as "not within" so a NaN tolerance or clock (a bad setting) refuses instead of accepting.
  if (!(Math.abs(now - parsed.timestamp) <= toleranceSeconds)) {
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  }
  if (parsed.v2.length > 0) {
    const id = singleHeaderValue(deliveryId);
    if (id === undefined || !DELIVERY_ID.test(id)) return { ok: false, reason: 'invalid_delivery_id' };
    return anyVerifies(parsed.v2, signedBytes('v2', parsed.timestamp, url, id), keys)
      ? { ok: true, timestamp: parsed.timestamp, scheme: 'v2', deliveryId: id }
      : { ok: false, reason: 'no_matching_signature' };
  }
  if (requireV2) return { ok: false, reason: 'v2_required' };
  return anyVerifies(parsed.v1, signedBytes('v1', parsed.timestamp, url), keys)
    ? { ok: true, timestamp: parsed.timestamp, scheme: 'v1' }
    : { ok: false, reason: 'no_matching_signature' };
}

/** The public half of an Ed25519 key given as a KeyObject (public or private), PEM text or a JWK. */
export function toEd25519PublicKey(key: CallbackPublicKey): KeyObject {
  const publicKey = toPublicKeyObject(key);
  if (publicKey.asymmetricKeyType !== 'ed25519') {
    throw new TypeError(`callback keys must be Ed25519, got ${publicKey.asymmetricKeyType ?? publicKey.type}`);
  }
  return publicKey;
}

function toPublicKeyObject(key: CallbackPublicKey): KeyObject {
  if (typeof key === 'string') return createPublicKey(key);
  if (!(key instanceof KeyObject)) return createPublicKey({ key, format: 'jwk' });
  // createPublicKey derives the public half of a private key but refuses a key that is already public.
  return key.type === 'public' ? key : createPublicKey(key);
}

/** v1: `t.url`; v2: `t.deliveryId.url` (the id has no ".", so the text splits one way only). */
function signedBytes(scheme: 'v1', timestamp: number, url: string): Buffer;
function signedBytes(scheme: 'v2', timestamp: number, url: string, deliveryId: string): Buffer;
function signedBytes(scheme: CallbackSignatureScheme, timestamp: number, url: string, deliveryId?: string): Buffer {
  return Buffer.from(scheme === 'v1' ? `${timestamp}.${url}` : `${timestamp}.${deliveryId}.${url}`, 'utf8');
}

function anyVerifies(signatures: readonly string[], signed: Buffer, keys: readonly KeyObject[]): boolean {
  let matched = false;
  for (const signature of signatures) {
    const signatureBytes = Buffer.from(signature, 'base64');
    for (const key of keys) matched = verify(null, signed, key, signatureBytes) || matched;
  }
  return matched;
}

/** A header as Node hands it over: a string, or an array when it came more than once (refused). */
function singleHeaderValue(value: string | readonly string[] | undefined): string | undefined {
  if (typeof value === 'string') return value;
  return Array.isArray(value) && value.length === 1 && typeof value[0] === 'string' ? value[0] : undefined;
}

function isCanonicalEd25519Signature(value: string): boolean {
  const bytes = Buffer.from(value, 'base64');
  // Buffer's decoder skips bad characters; re-encoding catches them and any non-canonical padding.
  return bytes.length === ED25519_SIGNATURE_BYTES && bytes.toString('base64') === value;
}

function nowInSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
