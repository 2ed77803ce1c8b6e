import { createCipheriv, createDecipheriv } from 'node:crypto';
import type { EvmAddress } from './evm-address';
import { randomBytesFromPool } from './random-bytes';

/**
 * `address_in` is the temporary wallet address sealed with AES-256-GCM:
 * `<key id>.<base64url(iv ‖ ciphertext ‖ tag)>`. The key id lets operators rotate keys while
 * links already in customers' hands keep opening; GCM makes a forged or altered token fail to
 * open instead of decrypting to some other address. The key id is bound as associated data.
 */
export interface SealingKey {
  readonly id: string;
  /** 32 bytes. */
  readonly key: Buffer;
}

export interface SealingKeyRing {
  /** The key new tokens are sealed with. */
  readonly current: SealingKey;
  /** Every key that may still open a token, the current one included. */
  readonly byId: ReadonlyMap<string, SealingKey>;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const ADDRESS_BYTES = 20;
const KEY_ID = /^[A-Za-z0-9_-]{1,16}$/;
const SEALED_BODY_LENGTH = Math.ceil(((IV_BYTES + ADDRESS_BYTES + TAG_BYTES) * 4) / 3);

export function createSealingKeyRing(keys: readonly SealingKey[]): SealingKeyRing {
  const [current] = keys;
  if (!current) throw new Error('at least one address_in sealing key is required');
  for (const key of keys) {
    if (!KEY_ID.test(key.id)) throw new Error(`sealing key id "${key.id}" must be 1-16 characters of A-Z a-z 0-9 _ -`);
    if (key.key.length !== 32) throw new Error(`sealing key "${key.id}" must be 32 bytes, got ${key.key.length}`);
  }
  return { current, byId: new Map(keys.map((key) => [key.id, key])) };
}

export function sealAddressIn(address: EvmAddress, ring: SealingKeyRing): string {
  const { id, key } = ring.current;
  const iv = randomBytesFromPool(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(id));
  const ciphertext = Buffer.concat([cipher.update(Buffer.from(address.slice(2), 'hex')), cipher.final()]);
  return `${id}.${Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url')}`;
}

/**
 * Returns the temporary address in lower-case hex (the form it is stored and matched in; an
 * EIP-55 checksum would cost a keccak per request and protects nothing here: GCM already
 * guarantees these are the bytes we sealed), or undefined when the token was not sealed by one of our keys.
 */
export function openAddressIn(token: string, ring: SealingKeyRing): EvmAddress | undefined {
  const dot = token.indexOf('.');
  if (dot < 1) return undefined;
  const key = ring.byId.get(token.slice(0, dot));
  const body = token.slice(dot + 1);
  if (!key || body.length !== SEALED_BODY_LENGTH || !/^[A-Za-z0-9_-]+$/.test(body)) return undefined;
  const raw = Buffer.from(body, 'base64url');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(key.id));
    decipher.setAuthTag(raw.subarray(IV_BYTES + ADDRESS_BYTES));
    const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, IV_BYTES + ADDRESS_BYTES)), decipher.final()]);
    return `0x${plain.toString('hex')}`;
  } catch {
    return undefined;
  }
}
