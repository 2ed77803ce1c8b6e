import { createPrivateKey, createPublicKey, KeyObject, sign, verify, type JsonWebKey } from 'node:crypto';
import { usdcBaseUnits } from './usdc-amount';

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
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

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
   * The payout address you registered the wallet with (Create Wallet's `address`), any case. The
   * callback's `address_out` must be it: a valid signature only proves the gateway sent the
   * callback, and whoever registered your callback URL with their own payout address first would
   * get you a signed callback for money paid to them. Required; not an address: a TypeError.
   */
  payoutAddress: string;
  /**
   * What this order must pay you, in USDC as a decimal string ("25", "24.75"; at most 6 decimals):
   * the callback's `value_forwarded_coin` (what reached your payout address) must be at least
   * this, compared exactly in base units. Required, because a signed callback only says a payment
   * arrived, not that your share of it covers the order: a wallet whose terms send most of the
   * money elsewhere still fires your callback. `false` opts out explicitly, for a merchant that
   * compares `value_forwarded_coin` itself. Anything else: a TypeError.
   */
  expectedAmount: string | false;
  /** The `ipn_token` Create Wallet answered for this order, if you kept it: the callback's must be it. */
  ipnToken?: string;
  /**
   * Also accept a header with only `v1` signatures (a gateway older than v2). Off by default: anyone
   * who strips the v2 entries from a captured header would otherwise be checked against v1 alone,
   * which does not cover the delivery id, so a replay under a fresh id would pass.
   */
  allowV1?: boolean;
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
  /** The header has no v2 signature, and `allowV1` is not set. */
  | 'v2_required'
  /** The signed URL has no `address_out`, more than one, or one that is not your `payoutAddress`: the money went elsewhere. */
  | 'address_out_mismatch'
  /** The signed URL's `ipn_token` is not the `ipnToken` given: a callback of another wallet. */
  | 'ipn_token_mismatch'
  /** The signed URL's `value_forwarded_coin` is below `expectedAmount`, missing, more than one, or not a USDC amount. */
  | 'amount_below_expected';

/** A callback that passed every check asked for: what its signed URL and header say. */
export interface VerifiedCallback {
  ok: true;
  timestamp: number;
  /** Which signature verified: `v2` covers the delivery id, `v1` only the URL and time. */
  scheme: CallbackSignatureScheme;
  /** With `v2`: the verified delivery id, the one to deduplicate on. */
  deliveryId?: string;
  /** The payout address the merchant's share was paid to, as the signed URL has it (it is yours). */
  addressOut: string;
  /** What reached your payout address (`value_forwarded_coin`), as the signed URL has it (when it has one). */
  valueForwarded?: string;
}

export type VerifyCallbackSignatureResult = VerifiedCallback | { ok: false; reason: CallbackSignatureFailure };

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
 * What a merchant checks, in order: the signature (a `v2`, which covers the delivery id; `v1` only
 * for a header without any v2 and with `allowV1`; a failing v2 never falls back to v1), its time,
 * then what the signed URL says: `address_out` must be your payout address and, when given,
 * `ipn_token` your wallet's. Every signature-key pair of the scheme is checked, so the time taken
 * does not depend on which one matched. Throws only for a configuration error (a key that is not an
 * Ed25519 public key, a `payoutAddress` that is not an address), never because of what the request
 * carries. `value_forwarded_coin` (your share) must be at least `expectedAmount`. Then deduplicate on
 * the returned delivery id.
 */
export function verifyCallbackSignature({
  url,
  header,
  deliveryId,
  publicKeys,
  payoutAddress,
  expectedAmount,
  ipnToken,
  allowV1 = false,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
  now = nowInSeconds(),
}: VerifyCallbackSignatureInput): VerifyCallbackSignatureResult {
  if (typeof payoutAddress !== 'string' || !EVM_ADDRESS.test(payoutAddress)) {
    throw new TypeError(
      'payoutAddress must be your payout address (0x and 40 hexadecimal characters), the one the wallet was registered with',
    );
  }
  // undefined for false (the caller compares the amount itself) and for anything not an amount.
  const expected = usdcBaseUnits(expectedAmount);
  if (expectedAmount !== false && expected === undefined) {
    throw new TypeError(
      "expectedAmount must be what the order must pay you in USDC as a decimal string (e.g. '25' or '24.75', at most 6 decimals), " +
        'or false to compare value_forwarded_coin yourself',
    );
  }
  const keys = publicKeys.map(toEd25519PublicKey);
  const parsed = parseSignatureHeader(header);
  if (parsed === undefined) return { ok: false, reason: 'malformed_header' };
  // Written as "not within" so a NaN tolerance or clock (a bad setting) refuses instead of accepting.
  if (!(Math.abs(now - parsed.timestamp) <= toleranceSeconds)) {
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  }
  let signed: { scheme: CallbackSignatureScheme; deliveryId?: string };
  if (parsed.v2.length > 0) {
    const id = singleHeaderValue(deliveryId);
    if (id === undefined || !DELIVERY_ID.test(id)) return { ok: false, reason: 'invalid_delivery_id' };
    if (!anyVerifies(parsed.v2, signedBytes('v2', parsed.timestamp, url, id), keys)) return { ok: false, reason: 'no_matching_signature' };
    signed = { scheme: 'v2', deliveryId: id };
  } else {
    if (!allowV1) return { ok: false, reason: 'v2_required' };
    if (!anyVerifies(parsed.v1, signedBytes('v1', parsed.timestamp, url), keys)) return { ok: false, reason: 'no_matching_signature' };
    signed = { scheme: 'v1' };
  }
  // The URL is signed as sent: read from it, the gateway's parameters are what the gateway wrote
  // (it appends each once, and drops any merchant parameter of the same name).
  const query = URL.canParse(url) ? new URL(url).searchParams : new URLSearchParams();
  const addressOut = query.getAll('address_out');
  if (addressOut.length !== 1 || addressOut[0]!.toLowerCase() !== payoutAddress.toLowerCase())
    return { ok: false, reason: 'address_out_mismatch' };
  if (ipnToken !== undefined && (query.getAll('ipn_token').length !== 1 || query.get('ipn_token') !== ipnToken)) {
    return { ok: false, reason: 'ipn_token_mismatch' };
  }
  const forwarded = query.getAll('value_forwarded_coin');
  const forwardedUnits = forwarded.length === 1 ? usdcBaseUnits(forwarded[0]!) : undefined;
  if (expected !== undefined && (forwardedUnits === undefined || forwardedUnits < expected)) {
    return { ok: false, reason: 'amount_below_expected' };
  }
  return {
    ok: true,
    timestamp: parsed.timestamp,
    ...signed,
    addressOut: addressOut[0]!,
    ...(forwardedUnits === undefined ? {} : { valueForwarded: forwarded[0]! }),
  };
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
