import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { allowedCidrProblem } from '@gateway/domain';

/**
 * Settings that two apps read and must agree on, each defined and parsed here once: the callback
 * address exemptions (Create Wallet accepts exactly what the callback-worker will call), and the
 * callback signing keys (the callback-worker's private halves, wallet-control's public ones: one
 * list format, one key-id rule).
 */

export const callbackAllowedCidrsSettings = {
  CALLBACK_ALLOWED_CIDRS: Type.String({
    default: '',
    description:
      'comma-separated ranges exempt from the callback address rule (e.g. 127.0.0.0/8,::1/128 for the local stack), set alike on ' +
      'wallet-control and the callback-worker; production refuses any range reaching loopback, link-local, the unspecified ' +
      'address (0.0.0.0, ::) or IPv4-compatible IPv6 (::7f00:1), also IPv4-mapped',
  }),
};

/**
 * CALLBACK_ALLOWED_CIDRS → its ranges, each checked by the one rule both apps apply (allowedCidrProblem);
 * problems are added to `problems`.
 */
export function parseCallbackAllowedCidrs(
  value: string,
  production: boolean,
  problems: string[],
  name = 'CALLBACK_ALLOWED_CIDRS',
): string[] {
  const cidrs = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  for (const cidr of cidrs) {
    const problem = allowedCidrProblem(cidr, production);
    if (problem !== undefined) problems.push(`${name}: ${problem}`);
  }
  return cidrs;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * Visits each entry of `kid:key,kid:key` in order (newest first), its problems reported in that
 * order too; a PEM pasted into one line usually arrives with literal \n.
 */
function forEachKeyEntry(value: string, name: string, problems: string[], visit: (kid: string, material: string) => void): void {
  for (const entry of value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const separator = entry.indexOf(':');
    const kid = separator === -1 ? '' : entry.slice(0, separator);
    if (KEY_ID.test(kid)) visit(kid, entry.slice(separator + 1).replaceAll('\\n', '\n'));
    else problems.push(`${name}: every entry must be kid:key with a kid of letters, digits, _ or - (at most 32)`);
  }
}

function uniqueKids(kids: readonly string[], name: string, problems: string[]): void {
  if (new Set(kids).size !== kids.length) problems.push(`${name}: key ids must be unique`);
}

/** A callback signing key as the callback-worker signs with it (CallbackSigningKey of @usdc-card-gateway/sdk). */
export interface CallbackPrivateKey {
  keyId: string;
  key: KeyObject;
}

/** A callback signing key's public half, as wallet-control publishes it for merchants. */
export interface CallbackPublicKey {
  kid: string;
  key: KeyObject;
}

/** CALLBACK_SIGNING_KEYS: `k2:<PEM or base64 PKCS#8>,k1:…` → Ed25519 private keys; at least one. */
export function parseCallbackSigningKeys(value: string, problems: string[], name = 'CALLBACK_SIGNING_KEYS'): CallbackPrivateKey[] {
  const keys: CallbackPrivateKey[] = [];
  forEachKeyEntry(value, name, problems, (kid, material) => {
    const key = parseKey(material, 'private');
    if (key === undefined) problems.push(`${name}: key ${kid} is not an Ed25519 private key (PEM or base64 PKCS#8)`);
    else keys.push({ keyId: kid, key });
  });
  if (keys.length === 0 && problems.length === 0) problems.push(`${name}: at least one key is required`);
  uniqueKids(
    keys.map((key) => key.keyId),
    name,
    problems,
  );
  return keys;
}

/** CALLBACK_PUBLIC_KEYS: `k2:<PEM or base64 SPKI>,k1:…` → Ed25519 public keys. A private key is refused, not converted. */
export function parseCallbackPublicKeys(value: string, problems: string[], name = 'CALLBACK_PUBLIC_KEYS'): CallbackPublicKey[] {
  const keys: CallbackPublicKey[] = [];
  forEachKeyEntry(value, name, problems, (kid, material) => {
    if (isPrivateKey(material)) {
      problems.push(`${name}: ${kid} is a private key; wallet-control must only get the public half`);
      return;
    }
    const key = parseKey(material, 'public');
    if (key === undefined) problems.push(`${name}: ${kid} is not an Ed25519 public key (PEM or base64 SPKI)`);
    else keys.push({ kid, key });
  });
  uniqueKids(
    keys.map((key) => key.kid),
    name,
    problems,
  );
  return keys;
}

/** Any private key, Ed25519 or not: its public half is what belongs in a public list. */
function isPrivateKey(material: string): boolean {
  if (material.includes('PRIVATE KEY')) return true;
  try {
    createPrivateKey({ key: Buffer.from(material, 'base64'), format: 'der', type: 'pkcs8' });
    return true;
  } catch {
    return false;
  }
}

/** An Ed25519 key from PEM or base64 DER (PKCS#8 private, SPKI public); undefined for anything else. */
function parseKey(material: string, half: 'private' | 'public'): KeyObject | undefined {
  try {
    const pem = material.includes('-----BEGIN');
    const key =
      half === 'private'
        ? pem
          ? createPrivateKey(material)
          : createPrivateKey({ key: Buffer.from(material, 'base64'), format: 'der', type: 'pkcs8' })
        : pem
          ? createPublicKey(material)
          : createPublicKey({ key: Buffer.from(material, 'base64'), format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'ed25519' ? key : undefined;
  } catch {
    return undefined;
  }
}
