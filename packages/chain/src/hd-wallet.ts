import { secp256k1 } from '@noble/curves/secp256k1';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { bytesToHex, type Address } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';

/**
 * Temporary wallets are the children m/44'/60'/0'/0/<index> of one HD seed. The API apps hold
 * only the extended public key of m/44'/60'/0'/0, which derives every address but signs nothing;
 * the settlement worker alone holds the seed and derives the same addresses' keys.
 */
export const TEMPORARY_WALLET_PARENT_PATH = "m/44'/60'/0'/0";

export class TemporaryAddressDeriver {
  private readonly parent: HDKey;

  constructor(xpub: string) {
    this.parent = HDKey.fromExtendedKey(xpub);
    if (this.parent.privateKey) throw new Error('expected an extended PUBLIC key (xpub), got a private one');
    if (this.parent.depth !== 4) {
      throw new Error(`the xpub must be of ${TEMPORARY_WALLET_PARENT_PATH} (depth 4), got depth ${this.parent.depth}`);
    }
  }

  addressAt(index: bigint): Address {
    if (index < 0n || index >= 2n ** 31n) throw new Error(`HD index ${index} is outside the non-hardened range`);
    const child = this.parent.deriveChild(Number(index));
    if (!child.publicKey) throw new Error(`no public key at index ${index}`);
    // BIP-32 keeps public keys compressed; an Ethereum address hashes the uncompressed point.
    const uncompressed = secp256k1.ProjectivePoint.fromHex(child.publicKey).toRawBytes(false);
    return publicKeyToAddress(bytesToHex(uncompressed));
  }
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
