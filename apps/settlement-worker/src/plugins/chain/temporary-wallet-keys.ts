import fp from 'fastify-plugin';
import { assertWalletsHdKey } from '@gateway/http/boot-checks';
import { TemporaryWalletKeys } from '../../chain/temporary-wallet-keys';
import type { SettlementConfig } from '../../config';
import { seedKeyCheck } from '../../services/boot-checks';

declare module 'fastify' {
  interface FastifyInstance {
    /** The temporary wallets' keys, from the seed whose xpub derived them. */
    temporaryWalletKeys: TemporaryWalletKeys;
  }
}

export const temporaryWalletKeys = fp<{ config: SettlementConfig }>(
  async (app, { config }) => {
    await assertWalletsHdKey(seedKeyCheck(app.pool, config.mnemonic));
    app.decorate('temporaryWalletKeys', new TemporaryWalletKeys(config.mnemonic));
  },
  { name: 'temporary-wallet-keys', dependencies: ['postgres'] },
);
