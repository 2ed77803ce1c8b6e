import { ConfigError } from '@gateway/config';

export interface HdKeyCheckOptions {
  /**
   * The keys this database knows, by BIP-32 fingerprint, read with the app's own HdKeyRepository
   * (`@gateway/db/<app>`, as its PostgreSQL role): wallet-control records its key first when there
   * is none (registerAndList), settlement only reads (list).
   */
  knownKeys: () => Promise<string[]>;
  fingerprint: string;
  /** How the refusal names the app's key: `HD_XPUB: its key`, "SETTLEMENT_MNEMONIC: its key m/44'/60'/0'/0". */
  setting: string;
  /** What the operator configures instead. */
  remedy: string;
}

/**
 * Refuses to run with another HD key than the one this database's temporary wallets were derived
 * from (migration 009): wallet-control would hand out addresses the settlement seed cannot sign for,
 * and settlement would sign for the wrong addresses. A database with no key yet has no wallets.
 */
export async function assertWalletsHdKey({ knownKeys, fingerprint, setting, remedy }: HdKeyCheckOptions): Promise<void> {
  const known = await knownKeys();
  if (known.length === 0 || (known.length === 1 && known[0] === fingerprint)) return;
  throw new ConfigError([
    `${setting} (fingerprint ${fingerprint}) is not the key this database's temporary wallets were derived from ` +
      `(${known.join(', ')}); ${remedy}`,
  ]);
}
