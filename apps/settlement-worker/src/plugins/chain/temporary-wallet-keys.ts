import fp from 'fastify-plugin';
import { fingerprintFromMnemonic } from '@gateway/chain';
import { HdKeyRepository } from '@gateway/db/settlement-worker';
import { TemporaryWalletKeys } from '../../chain/temporary-wallet-keys';
import type { SettlementConfig } from '../../config';
import { assertSeedDerivedTheWallets } from '../../services/seed-check';

declare module 'fastify' {
  interface FastifyInstance {
    /** The temporary wallets' keys, from the seed whose xpub derived them. */
    temporaryWalletKeys: TemporaryWalletKeys;
  }
}

export const temporaryWalletKeys = fp<{ config: SettlementConfig }>(
  async (app, { config }) => {
    await assertSeedDerivedTheWallets(new HdKeyRepository(app.pool), fingerprintFromMnemonic(config.mnemonic));
    app.decorate('temporaryWalletKeys', new TemporaryWalletKeys(config.mnemonic));
  },
  { name: 'temporary-wallet-keys', dependencies: ['postgres'] },
);
