import { compactVerify, importJWK, importPKCS8, SignJWT, type JWK, type JWTPayload } from 'jose';

/**
 * ES256 JSON Web Tokens and detached-payload JWS, through `jose` (a maintained, audited JOSE
 * library) rather than hand-built ECDSA encodings.
 */

export type SigningKey = Awaited<ReturnType<typeof importPKCS8>>;

/** An ES256 private key from PEM (PKCS#8) or a JWK in JSON, as operators hold them. */
export async function importEs256PrivateKey(text: string): Promise<SigningKey> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return (await importJWK(JSON.parse(trimmed) as JWK, 'ES256')) as SigningKey;
  return importPKCS8(trimmed, 'ES256');
}

/** A public key from a JWK in JSON (providers publish webhook keys this way). */
export async function importPublicJwk(text: string, algorithm: string): Promise<SigningKey> {
  return (await importJWK(JSON.parse(text) as JWK, algorithm)) as SigningKey;
}

export interface Es256JwtOptions {
  keyId: string;
  /** Unix seconds. */
  issuedAt: number;
  /** Seconds after issuedAt; omitted: no exp claim. */
  lifetimeSeconds?: number;
  jwtId?: string;
  subject?: string;
}

export async function signEs256Jwt(payload: JWTPayload, key: SigningKey, options: Es256JwtOptions): Promise<string> {
  let jwt = new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: options.keyId }).setIssuedAt(options.issuedAt);
  if (options.lifetimeSeconds !== undefined) jwt = jwt.setExpirationTime(options.issuedAt + options.lifetimeSeconds);
  if (options.jwtId !== undefined) jwt = jwt.setJti(options.jwtId);
  if (options.subject !== undefined) jwt = jwt.setSubject(options.subject);
  return jwt.sign(key);
}

/**
 * Verifies a JWS whose payload was left out of it (`header..signature`, RFC 7515 appendix F) over
 * the body as received. True only for a valid signature by `key` with one of `algorithms`.
 */
export async function verifyDetachedJws(jws: string, rawBody: Buffer, key: SigningKey, algorithms: readonly string[]): Promise<boolean> {
  const parts = jws.split('.');
  if (parts.length !== 3 || parts[1] !== '') return false;
  try {
    await compactVerify(`${parts[0]}.${rawBody.toString('base64url')}.${parts[2]}`, key, { algorithms: [...algorithms] });
    return true;
  } catch {
    return false;
  }
}
