import type { JsonWebKey, KeyObject } from 'node:crypto';
import { toEd25519PublicKey } from './callback-signature';

export interface Ed25519PublicJwk extends JsonWebKey {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  use: 'sig';
  alg: 'EdDSA';
}

/** The public half of an Ed25519 key (given public or private) as a JWK set entry. */
export function publicKeyToJwk(key: KeyObject | string, kid: string): Ed25519PublicJwk {
  const { x } = toEd25519PublicKey(key).export({ format: 'jwk' });
  if (x === undefined) throw new TypeError('Ed25519 key exported without its x coordinate');
  return { kty: 'OKP', crv: 'Ed25519', x, kid, use: 'sig', alg: 'EdDSA' };
}
