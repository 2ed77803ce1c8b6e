import { mnemonicToSeedSync } from '@scure/bip39';
import { getAddress, isAddressEqual, type LocalAccount } from 'viem';
import { hdKeyToAccount, HDKey } from 'viem/accounts';

/**
 * The keys of the temporary wallets: child m/44'/60'/0'/0/<hd_index> of the settlement seed.
 * Only this app holds the seed; the API apps derive the same addresses from the xpub.
 */
export class TemporaryWalletKeys {
  private readonly master: HDKey;

  constructor(mnemonic: string) {
    // The seed is stretched once (PBKDF2, 2048 rounds); each child is then a cheap derivation.
    this.master = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic));
  }

  /**
   * The signer of the wallet at `hdIndex`. Refuses when it does not derive `expectedAddress`:
   * the seed and the database disagree, and nothing should be signed until that is explained.
   */
  accountAt(hdIndex: bigint, expectedAddress: string): LocalAccount {
    if (hdIndex < 0n || hdIndex >= 2n ** 31n) throw new Error(`HD index ${hdIndex} is outside the non-hardened range`);
    const account = hdKeyToAccount(this.master, { addressIndex: Number(hdIndex) });
    if (!isAddressEqual(account.address, getAddress(expectedAddress))) {
      throw new Error(
        `the settlement seed derives ${account.address} at index ${hdIndex}, but the wallet is ${expectedAddress}: ` +
          'SETTLEMENT_MNEMONIC does not match the HD_XPUB the wallets were created with',
      );
    }
    return account;
  }
}
