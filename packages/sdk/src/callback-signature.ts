import { createPrivateKey, createPublicKey, KeyObject, sign, verify, type JsonWebKey } from 'node:crypto';

export const CALLBACK_SIGNATURE_HEADER = 'x-gateway-signature';
export const CALLBACK_DELIVERY_ID_HEADER = 'x-gateway-delivery-id';

export const DEFAULT_TOLERANCE_SECONDS = 300;

const ED25519_SIGNATURE_BYTES = 64;
// The gateway sends one v1 per signing key (two during a rotation); a cap keeps a hostile header
// from making the verifier run thousands of signature checks.
const MAX_SIGNATURES = 8;
// Canonical decimal only, so the number printed back is the exact text that was signed.
const UNIX_SECONDS = /^(0|[1-9]\d{0,14})$/;

export interface CallbackSigningKey {
  /** Only used to name the key in error messages; the header does not carry key ids. */
  keyId?: string;
  /** An Ed25519 private key, as a KeyObject or PEM text. */
  key: KeyObject | string;
}

export interface SignCallbackInput {
  /** The full callback URL exactly as it is sent. */
  url: string;
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
  publicKeys: readonly CallbackPublicKey[];
  /** How far the signature time may be from now, in either direction. */
  toleranceSeconds?: number;
  /** Unix seconds; defaults to now. */
  now?: number;
}

export type CallbackSignatureFailure = 'malformed_header' | 'timestamp_out_of_tolerance' | 'no_matching_signature';

export type VerifyCallbackSignatureResult =
  | { ok: true; timestamp: number }
  | { ok: false; reason: CallbackSignatureFailure };

export interface ParsedSignatureHeader {
  timestamp: number;
  /** Base64 Ed25519 signatures, one per signing key. */
  signatures: string[];
}

/** `t=<unix seconds>,v1=<base64 signature>[,v1=…]`, one v1 per key so merchants survive a key rotation. */
export function signCallback({ url, privateKeys, timestamp = nowInSeconds() }: SignCallbackInput): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`timestamp must be a non-negative integer of unix seconds, got ${timestamp}`);
  }
  if (privateKeys.length === 0) throw new RangeError('at least one signing key is required');
  const signed = signedBytes(timestamp, url);
  const signatures = privateKeys.map(({ keyId, key }) => {
    const privateKey = typeof key === 'string' ? createPrivateKey(key) : key;
    if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') {
      throw new TypeError(`signing key ${keyId ?? '(no key id)'} is not an Ed25519 private key`);
    }
    return `v1=${sign(null, signed, privateKey).toString('base64')}`;
  });
  return [`t=${timestamp}`, ...signatures].join(',');
}

/** Undefined when the header is not a well-formed signature header; never throws. */
export function parseSignatureHeader(header: unknown): ParsedSignatureHeader | undefined {
  if (typeof header !== 'string') return undefined;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator === -1) return undefined;
    const name = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (name === 't') {
      if (timestamp !== undefined || !UNIX_SECONDS.test(value)) return undefined;
      timestamp = Number(value);
    } else if (name === 'v1') {
      if (!isCanonicalEd25519Signature(value)) return undefined;
      signatures.push(value);
    }
    // Other names are skipped so a future scheme (v2=…) can be sent next to v1.
  }
  if (timestamp === undefined || signatures.length === 0 || signatures.length > MAX_SIGNATURES) return undefined;
  return { timestamp, signatures };
}

/**
 * Accepts when any v1 signature verifies with any of the keys. Every pair is checked, so the time
 * taken does not depend on which one matched. Throws only for a key that is not an Ed25519 public key
 * (a configuration error), never because of what the request carries.
 */
export function verifyCallbackSignature({
  url,
  header,
  publicKeys,
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
  const signed = signedBytes(parsed.timestamp, url);
  let matched = false;
  for (const signature of parsed.signatures) {
    const signatureBytes = Buffer.from(signature, 'base64');
    for (const key of keys) {
      matched = verify(null, signed, key, signatureBytes) || matched;
    }
  }
  return matched ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: 'no_matching_signature' };
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

function signedBytes(timestamp: number, url: string): Buffer {
  return Buffer.from(`${timestamp}.${url}`, 'utf8');
}

function isCanonicalEd25519Signature(value: string): boolean {
  const bytes = Buffer.from(value, 'base64');
  // Buffer's decoder skips bad characters; re-encoding catches them and any non-canonical padding.
  return bytes.length === ED25519_SIGNATURE_BYTES && bytes.toString('base64') === value;
}

function nowInSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
