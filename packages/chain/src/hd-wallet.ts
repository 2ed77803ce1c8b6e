import { createHmac } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import type { Address } from 'viem';
import { keccakBackend, secp256k1Backend, type KeccakBackend, type Secp256k1Backend } from './crypto-backends';

/** The key whose children m/44'/60'/0'/0/<index> of one HD seed are the temporary wallets. */
export const TEMPORARY_WALLET_PARENT_PATH = "m/44'/60'/0'/0";

/**
 * The temporary wallets' addresses, from the extended public key of TEMPORARY_WALLET_PARENT_PATH:
 * what the API apps hold, which derives every address but signs nothing; the settlement worker
 * alone holds the seed and derives the same addresses' keys.
 */
export class TemporaryAddressDeriver {
  private readonly parentPublicKey: Buffer;
  /** The same point uncompressed: libsecp256k1 parses it without the square root a compressed key needs. */
  private readonly parentPoint: Uint8Array;
  private readonly chainCode: Buffer;
  private readonly secp256k1 = secp256k1Backend();
  private readonly keccak = keccakBackend();
  /** BIP-32 fingerprint of the xpub's key: which key derived an address, recorded with each wallet. */
  readonly fingerprint: string;

  constructor(xpub: string) {
    const parent = HDKey.fromExtendedKey(xpub);
    if (parent.privateKey) throw new Error('expected an extended PUBLIC key (xpub), got a private one');
    if (parent.depth !== 4) {
      throw new Error(`the xpub must be of ${TEMPORARY_WALLET_PARENT_PATH} (depth 4), got depth ${parent.depth}`);
    }
    if (!parent.publicKey || !parent.chainCode) throw new Error('the xpub has no public key or chain code');
    this.parentPublicKey = Buffer.from(parent.publicKey);
    this.parentPoint = this.secp256k1.publicKeyConvert(this.parentPublicKey, false);
    this.chainCode = Buffer.from(parent.chainCode);
    this.fingerprint = keyFingerprint(parent);
  }

  /** Which implementations derive: `native` for both unless a binding failed to load. */
  get backends(): { secp256k1: Secp256k1Backend['name']; keccak: KeccakBackend['name'] } {
    return { secp256k1: this.secp256k1.name, keccak: this.keccak.name };
  }

  addressAt(index: bigint): Address {
    // An Ethereum address hashes the uncompressed point, so the child is made uncompressed.
    const child = derivePublicChild(this.parentPublicKey, this.chainCode, index, false, this.secp256k1, this.parentPoint);
    return ethereumAddress(child, this.keccak);
  }

  childPublicKey(index: bigint, compressed: boolean): Uint8Array {
    return derivePublicChild(this.parentPublicKey, this.chainCode, index, compressed, this.secp256k1, this.parentPoint);
  }
}

/** The EIP-55 (mixed-case checksum) address of an uncompressed public key. */
export function ethereumAddress(uncompressedPublicKey: Uint8Array, keccak: KeccakBackend = keccakBackend()): Address {
  const lower = Buffer.from(keccak.keccak256(uncompressedPublicKey.subarray(1)).subarray(12)).toString('hex');
  const hash = keccak.keccak256(Buffer.from(lower, 'latin1'));
  let checksummed = '0x';
  for (let i = 0; i < 40; i += 1) {
    const nibble = ((hash[i >> 1] ?? 0) >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    checksummed += nibble >= 8 ? (lower[i] as string).toUpperCase() : lower[i];
  }
  return checksummed as Address;
}

/**
 * BIP-32 public child derivation (CKDpub) for a non-hardened index: HMAC-SHA512 keyed by the
 * chain code over the parent key and the index; the left half, as a scalar, is added to the
 * parent point. A left half at or above the curve order makes the tweak throw, as BIP-32 says
 * such an index is invalid (odds about 1 in 2^127). `parentPoint` is the parent key in any
 * encoding (the HMAC always takes the compressed one).
 */
export function derivePublicChild(
  parentPublicKey: Uint8Array,
  chainCode: Uint8Array,
  index: bigint,
  compressed: boolean,
  secp256k1: Secp256k1Backend = secp256k1Backend(),
  parentPoint: Uint8Array = parentPublicKey,
): Uint8Array {
  if (index < 0n || index >= 2n ** 31n) throw new Error(`HD index ${index} is outside the non-hardened range`);
  const data = Buffer.allocUnsafe(37);
  data.set(parentPublicKey, 0);
  data.writeUInt32BE(Number(index), 33);
  const tweak = createHmac('sha512', chainCode).update(data).digest().subarray(0, 32);
  return secp256k1.publicKeyTweakAdd(parentPoint, tweak, compressed);
}

/** The BIP-32 fingerprint (first 4 bytes of HASH160 of the public key) as 8 hex digits. */
function keyFingerprint(key: HDKey): string {
  return key.fingerprint.toString(16).padStart(8, '0');
}

/** The fingerprint of m/44'/60'/0'/0 derived from the seed: the settlement side's check that its seed made the wallets. */
export function fingerprintFromMnemonic(mnemonic: string): string {
  return keyFingerprint(HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(TEMPORARY_WALLET_PARENT_PATH));
}

/** The xpub that the API apps are configured with, from the mnemonic the settlement side keeps. */
export function xpubFromMnemonic(mnemonic: string): string {
  return HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(TEMPORARY_WALLET_PARENT_PATH).publicExtendedKey;
}

/** The mnemonic every local EVM chain ships with; its keys are public knowledge. */
export const PUBLIC_TEST_MNEMONIC = 'test test test test test test test test test test test junk';

export function isPublicTestXpub(xpub: string): boolean {
  return xpub === xpubFromMnemonic(PUBLIC_TEST_MNEMONIC);
}
