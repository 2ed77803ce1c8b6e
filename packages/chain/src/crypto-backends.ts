import type { publicKeyConvert, publicKeyTweakAdd } from 'secp256k1';
import { keccak256 } from 'viem';

export interface Secp256k1Backend {
  /** `native`: libsecp256k1 through the package's prebuilt binding; `elliptic`: its pure-JS fallback. */
  readonly name: 'native' | 'elliptic';
  readonly publicKeyTweakAdd: typeof publicKeyTweakAdd;
  readonly publicKeyConvert: typeof publicKeyConvert;
}

export interface KeccakBackend {
  /** `native`: the keccak package's prebuilt binding; `javascript`: viem's (@noble/hashes). */
  readonly name: 'native' | 'javascript';
  keccak256(data: Uint8Array): Uint8Array;
}

let secp256k1: Secp256k1Backend | undefined;
let keccak: KeccakBackend | undefined;

/**
 * libsecp256k1 derives a child public key in a few microseconds, about ten times faster than
 * pure JavaScript; the package's own JS implementation stands in where its binding cannot load
 * (a platform without a prebuilt binary). Callers say at boot which one they got.
 */
export function secp256k1Backend(): Secp256k1Backend {
  if (secp256k1) return secp256k1;
  try {
    secp256k1 = { name: 'native', ...(require('secp256k1/bindings') as Omit<Secp256k1Backend, 'name'>) };
  } catch {
    secp256k1 = { name: 'elliptic', ...(require('secp256k1/elliptic') as Omit<Secp256k1Backend, 'name'>) };
  }
  return secp256k1;
}

/** The native Keccak sponge of the `keccak` package (its KeccakState). */
interface NativeKeccakState {
  initialize(rateBits: number, capacityBits: number): void;
  absorb(data: Buffer): void;
  squeeze(bytes: number): Buffer;
}

// Keccak-256 as Ethereum uses it: rate 1088 bits, capacity 512, the original padding (no suffix).
const KECCAK256_RATE_BITS = 1088;
const KECCAK256_CAPACITY_BITS = 512;

/** An address takes two Keccak-256 hashes (of the key, then of its hex for EIP-55), natively or, without the binding, in JS. */
export function keccakBackend(): KeccakBackend {
  if (keccak) return keccak;
  try {
    const create = require('keccak/bindings') as (algorithm: 'keccak256') => { _state: NativeKeccakState };
    // The package's hash object is a stream (readable-stream's Transform) built for every hash:
    // ~20 µs and a few KB of garbage each, most of an address's Keccak cost. Its native sponge is
    // reused instead, one hash at a time (synchronous: nothing runs between initialize and squeeze).
    const sponge = create('keccak256')._state;
    keccak = {
      name: 'native',
      keccak256: (data) => {
        sponge.initialize(KECCAK256_RATE_BITS, KECCAK256_CAPACITY_BITS);
        // The binding takes Buffers only; a view over the same memory costs no copy.
        sponge.absorb(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
        return sponge.squeeze(32);
      },
    };
  } catch {
    keccak = { name: 'javascript', keccak256: (data) => keccak256(data, 'bytes') };
  }
  return keccak;
}
