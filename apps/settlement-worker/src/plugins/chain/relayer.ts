import fp from 'fastify-plugin';
import { GatewayAddressRepository } from '@gateway/db/settlement-worker';
import { Relayer } from '../../chain/relayer';
import type { SettlementConfig } from '../../config';

declare module 'fastify' {
  interface FastifyInstance {
    /** The gas wallet that sends every payout transaction. */
    relayer: Relayer;
  }
}

export const relayer = fp<{ config: SettlementConfig }>(
  async (app, { config }) => {
    const gasWallet = new Relayer(config.relayerKey, app.settlementChain.chainId, config.raw.FEE_BUMP_PERCENT, config.maxFeePerGas);
    // Only this app knows them; the chain watcher reads them to ignore the gateway's own transfers.
    await new GatewayAddressRepository(app.pool).register([
      { address: gasWallet.address, role: 'relayer' },
      { address: config.platformFeeAddress, role: 'platform_fee' },
    ]);
    app.decorate('relayer', gasWallet);
  },
  { name: 'relayer', dependencies: ['postgres', 'settlement-chain'] },
);
