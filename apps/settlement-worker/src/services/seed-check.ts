import { ConfigError } from '@gateway/config';
import type { HdKeyRepository } from '@gateway/db/settlement-worker';

/**
 * Refuses to settle with a seed whose key is not the one wallet-control registered (it derived
 * the temporary wallets from that key's xpub): every signature would be for the wrong address.
 */
export async function assertSeedDerivedTheWallets(keys: HdKeyRepository, fingerprint: string): Promise<void> {
  const known = await keys.list();
  if (known.length === 0 || (known.length === 1 && known[0] === fingerprint)) return;
  throw new ConfigError([
    `SETTLEMENT_MNEMONIC: its key m/44'/60'/0'/0 (fingerprint ${fingerprint}) is not the key this database's temporary wallets ` +
      `were derived from (${known.join(', ')}); configure the seed whose xpub wallet-control uses`,
  ]);
}
