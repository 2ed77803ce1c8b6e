import { mnemonicToAccount } from 'viem/accounts';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { TemporaryAddressDeriver, xpubFromMnemonic } from '../src/hd-wallet';

const mnemonic = 'test test test test test test test test test test test junk';

describe('TemporaryAddressDeriver', () => {
  const xpub = xpubFromMnemonic(mnemonic);
  const deriver = new TemporaryAddressDeriver(xpub);

  it('derives from the xpub the same addresses the seed signs for', () => {
    for (const index of [0, 1, 7, 1000]) {
      expect(deriver.addressAt(BigInt(index))).toBe(mnemonicToAccount(mnemonic, { addressIndex: index }).address);
    }
  });
  it('matches the well-known first anvil account', () => {
    expect(deriver.addressAt(0n)).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
  });
  it('refuses an xpub of the wrong depth and indexes outside the range', () => {
    const master = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).publicExtendedKey;
    expect(() => new TemporaryAddressDeriver(master)).toThrow(/depth 4/);
    expect(() => deriver.addressAt(2n ** 31n)).toThrow(/range/);
  });
});
