import { createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';

/**
 * A CDP Secret API key as the CDP Portal gives it, and the Bearer JWT every CDP REST call carries
 * (docs.cdp.coinbase.com/api-reference/v2/authentication, "Generate bearer token (JWT)").
 * - Ed25519 keys (the Portal's default since 2025): the secret is base64 of 64 bytes, the 32-byte
 *   seed then the 32-byte public key; signed EdDSA.
 * - ECDSA keys (legacy, "organizations/…/apiKeys/…"): a PEM `EC PRIVATE KEY` (SEC1) or PKCS#8 on
 *   P-256; signed ES256.
 * The JWT: header {alg, kid: key id, typ: "JWT", nonce: 16 random bytes in hex}; claims {sub: key
 * id, iss: "cdp", aud: ["cdp_service"], uris: ["<METHOD> <host><path>"], iat, nbf, exp: nbf + 120},
 * as CDP's own SDK writes them (github.com/coinbase/cdp-sdk, typescript/src/auth/utils/jwt.ts,
 * generateJwt: `aud: options.audience || ["cdp_service"]`). `uris` (an array, beside `iat`) is
 * what that SDK emits; older pages show a singular `uri`.
 */
export interface CdpKey {
  algorithm: 'EdDSA' | 'ES256';
  key: KeyObject;
}

export const CDP_JWT_LIFETIME_S = 120;

/** Imports the key once, at boot: a key of another shape, or an Ed25519 secret whose halves disagree, is refused. */
export function importCdpKey(secret: string): CdpKey {
  const text = secret.trim().replace(/\\n/g, '\n');
  if (text.startsWith('-----BEGIN')) {
    const key = createPrivateKey(text);
    if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return { algorithm: 'ES256', key };
    if (key.asymmetricKeyType === 'ed25519') return { algorithm: 'EdDSA', key };
    throw new Error('the CDP key is neither a P-256 EC key nor an Ed25519 key');
  }
  const raw = Buffer.from(text, 'base64');
  if (raw.length !== 64 || raw.toString('base64') !== text)
    throw new Error('the CDP key is neither a PEM key nor 64 base64 bytes (Ed25519)');
  const key = createPrivateKey({
    key: { kty: 'OKP', crv: 'Ed25519', d: raw.subarray(0, 32).toString('base64url'), x: raw.subarray(32).toString('base64url') },
    format: 'jwk',
  });
  const publicHalf = createPublicKey(key).export({ format: 'jwk' }).x;
  if (publicHalf !== raw.subarray(32).toString('base64url'))
    throw new Error('the CDP Ed25519 key: its public half does not match its seed');
  return { algorithm: 'EdDSA', key };
}

export function cdpBearerJwt(cdpKey: CdpKey, keyId: string, method: string, url: string, nowMs: number): Promise<string> {
  const { host, pathname } = new URL(url);
  const now = Math.floor(nowMs / 1000);
  return new SignJWT({ aud: ['cdp_service'], uris: [`${method} ${host}${pathname}`] })
    .setProtectedHeader({ alg: cdpKey.algorithm, kid: keyId, typ: 'JWT', nonce: randomBytes(16).toString('hex') })
    .setSubject(keyId)
    .setIssuer('cdp')
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + CDP_JWT_LIFETIME_S)
    .sign(cdpKey.key);
}
