import fp from 'fastify-plugin';
import { TemporaryAddressDeriver } from '@gateway/chain';
import { HdKeyRepository } from '@gateway/db/wallet-control';
import { assertWalletsHdKey } from '@gateway/http/boot-checks';
import type { WalletControlConfig } from '../config';

declare module 'fastify' {
  interface FastifyInstance {
    /** Derives temporary addresses from the xpub (HD_XPUB): the key this database's wallets were derived from. */
    addressDeriver: TemporaryAddressDeriver;
  }
}

export const addressDeriver = fp<{ config: WalletControlConfig }>(
  async (app, { config }) => {
    const deriver = new TemporaryAddressDeriver(config.raw.HD_XPUB);
    const keys = new HdKeyRepository(app.pool);
    await assertWalletsHdKey({
      knownKeys: () => keys.registerAndList(deriver.fingerprint),
      fingerprint: deriver.fingerprint,
      setting: 'HD_XPUB: its key',
      remedy: 'configure that xpub, or use another database',
    });
    const { backends } = deriver;
    app.log.info({ keyFingerprint: deriver.fingerprint, ...backends }, 'deriving temporary addresses');
    if (backends.secp256k1 !== 'native' || backends.keccak !== 'native') {
      app.log.warn(backends, 'a native crypto binding did not load: deriving addresses partly in JavaScript, several times slower');
    }
    app.decorate('addressDeriver', deriver);
  },
  { name: 'address-deriver', dependencies: ['postgres'] },
);
