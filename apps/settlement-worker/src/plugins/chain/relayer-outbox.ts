import fp from 'fastify-plugin';
import { PayoutRepository } from '@gateway/db/settlement-worker';
import { RelayerOutbox } from '../../chain/relayer-outbox';
import type { SettlementConfig } from '../../config';
import { crashHookFor } from '../../crash-points';

declare module 'fastify' {
  interface FastifyInstance {
    /** One outbox for every relayer transaction, the payouts' and the replan command's cancellations. */
    relayerOutbox: RelayerOutbox;
  }
}

export const relayerOutbox = fp<{ config: SettlementConfig }>(
  async (app, { config }) => {
    app.decorate(
      'relayerOutbox',
      new RelayerOutbox({
        payouts: new PayoutRepository(app.pool),
        chain: app.settlementChain,
        relayer: app.relayer,
        metrics: app.settlementMetrics,
        log: app.log,
        crash: crashHookFor(config.crashAt),
      }),
    );
  },
  { name: 'relayer-outbox', dependencies: ['postgres', 'settlement-chain', 'relayer', 'settlement-metrics'] },
);
