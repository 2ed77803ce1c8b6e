import type { JsonWebKey } from 'node:crypto';
import { toEd25519PublicKey } from './callback-signature';

const SET_EXPECTED = 'give the JWK set ({"keys": [...]}) as the gateway serves it at /.well-known/jwks.json';

/**
 * The gateway's callback keys as a shop pins them: read once from the shop's configuration (the JWK
 * set `/.well-known/jwks.json` served when the shop was set up, or the keys its operator gave), as
 * its JSON text, the parsed set or its `keys`, and what `verifyCallbackSignature` takes as
 * `publicKeys`. Never fetch the set again because a check failed: whoever runs code on the
 * gateway's API host serves that set, and a shop that fetches it after a failure takes their key
 * and their "paid". Throws a TypeError at once (at start, not at the first callback) for anything
 * but Ed25519 public keys, each with a kid of its own; a private key is refused.
 */
export function pinnedCallbackKeys(jwks: string | { keys?: unknown } | readonly unknown[]): JsonWebKey[] {
  let parsed: unknown = jwks;
  if (typeof jwks === 'string') {
    try {
      parsed = JSON.parse(jwks);
    } catch {
      throw new TypeError('pinned callback keys: not JSON; give the JWK set as the gateway serves it at /.well-known/jwks.json');
    }
  }
  const keys: unknown = Array.isArray(parsed) ? parsed : (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw new TypeError(`pinned callback keys: no keys; ${SET_EXPECTED}`);
  const kids = new Set<string>();
  return keys.map((key: unknown, index) => {
    if (key === null || typeof key !== 'object') throw new TypeError(`pinned callback keys: key ${index + 1} is not a JWK object`);
    const jwk = key as JsonWebKey;
    if (typeof jwk.kid !== 'string' || jwk.kid === '') throw new TypeError(`pinned callback keys: key ${index + 1} has no kid`);
    if (kids.has(jwk.kid)) throw new TypeError(`pinned callback keys: kid ${jwk.kid} is given twice; each key has its own`);
    kids.add(jwk.kid);
    if (jwk.d !== undefined) {
      throw new TypeError(
        `pinned callback keys: ${jwk.kid} is a private key; pin the public key only (the private key belongs to the gateway alone)`,
      );
    }
    try {
      toEd25519PublicKey(jwk);
    } catch {
      throw new TypeError(`pinned callback keys: ${jwk.kid} is not an Ed25519 public key`);
    }
    return jwk;
  });
}

/**
 * The keys `served` (what `GatewayClient.callbackPublicKeys()` answers now) that are not among
 * `pinned`, compared by the key itself, not its kid: a key the operator announces for a rotation,
 * or one an intruder serves. Report them; add one to the configuration only once the operator has
 * confirmed it over another channel, never because the gateway serves it.
 */
export function unpinnedCallbackKeys(served: readonly JsonWebKey[], pinned: readonly JsonWebKey[]): JsonWebKey[] {
  const known = new Set(pinned.map(keyMaterial));
  return served.filter((key) => !known.has(keyMaterial(key)));
}

/** What makes an Ed25519 JWK the key it is: its type, curve and public point (not its kid or use). */
function keyMaterial(key: JsonWebKey): string {
  return JSON.stringify([key.kty, key.crv, key.x]);
}
