import type { publicKeyTweakAdd } from 'secp256k1';

export interface Secp256k1Backend {
  /** `native`: libsecp256k1 through the package's prebuilt binding; `elliptic`: its pure-JS fallback. */
  readonly name: 'native' | 'elliptic';
  readonly publicKeyTweakAdd: typeof publicKeyTweakAdd;
}

let loaded: Secp256k1Backend | undefined;

/**
 * libsecp256k1 derives a child public key in a few microseconds, about ten times faster than
 * pure JavaScript; the package's own JS implementation stands in where its binding cannot load
 * (a platform without a prebuilt binary). Callers say at boot which one they got.
 */
export function secp256k1Backend(): Secp256k1Backend {
  if (loaded) return loaded;
  try {
    loaded = { name: 'native', ...(require('secp256k1/bindings') as { publicKeyTweakAdd: typeof publicKeyTweakAdd }) };
  } catch {
    loaded = { name: 'elliptic', ...(require('secp256k1/elliptic') as { publicKeyTweakAdd: typeof publicKeyTweakAdd }) };
  }
  return loaded;
}
