import fp from 'fastify-plugin';
import { TemporaryAddressDeriver } from '@gateway/chain';
import { ConfigError } from '@gateway/config';
import { HdKeyRepository } from '@gateway/db/wallet-control';
import type { WalletControlConfig } from '../config';

declare module 'fastify' {
  interface FastifyInstance {
    /** Derives temporary addresses from the xpub (HD_XPUB): the key this database's wallets were derived from. */
    addressDeriver: TemporaryAddressDeriver;
  }
}

/**
 * Refuses to serve with an xpub other than the one this database's wallets were derived from:
 * its addresses would be ones the settlement seed cannot sign for.
 */
async function assertKnownHdKey(keys: HdKeyRepository, fingerprint: string): Promise<void> {
  const known = await keys.registerAndList(fingerprint);
  if (known.length === 1 && known[0] === fingerprint) return;
  throw new ConfigError([
    `HD_XPUB: its key (fingerprint ${fingerprint}) is not the key this database's temporary wallets were derived from ` +
      `(${known.join(', ')}); configure that xpub, or use another database`,
  ]);
}

export const addressDeriver = fp<{ config: WalletControlConfig }>(
  async (app, { config }) => {
    const deriver = new TemporaryAddressDeriver(config.raw.HD_XPUB);
    await assertKnownHdKey(new HdKeyRepository(app.pool), deriver.fingerprint);
    const { backends } = deriver;
    app.log.info({ keyFingerprint: deriver.fingerprint, ...backends }, 'deriving temporary addresses');
    if (backends.secp256k1 !== 'native' || backends.keccak !== 'native') {
      app.log.warn(backends, 'a native crypto binding did not load: deriving addresses partly in JavaScript, several times slower');
    }
    app.decorate('addressDeriver', deriver);
  },
  { name: 'address-deriver', dependencies: ['postgres'] },
);
