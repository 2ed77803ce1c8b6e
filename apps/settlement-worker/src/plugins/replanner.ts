import fp from 'fastify-plugin';
import { PayoutRepository, SettlementRepository } from '@gateway/db/settlement-worker';
import type { SettlementConfig } from '../config';
import { PayoutFinality } from '../legs/payout-finality';
import { DepositReplanner } from '../services/deposit-replanner';

declare module 'fastify' {
  interface FastifyInstance {
    /** The replan command's work: a new plan for a deposit that needs attention. */
    replanner: DepositReplanner;
  }
}

export const replanner = fp<{ config: SettlementConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    const { pool, settlementChain: chain, settlementMetrics: metrics, log } = app;
    app.decorate(
      'replanner',
      new DepositReplanner({
        settlements: new SettlementRepository(pool),
        payouts: new PayoutRepository(pool),
        chain,
        outbox: app.relayerOutbox,
        keys: app.temporaryWalletKeys,
        finality: new PayoutFinality({ chain, confirmations: raw.CONFIRMATIONS, metrics, log }),
        settings: {
          platformFeeAddress: config.platformFeeAddress,
          authorizationValiditySeconds: raw.AUTHORIZATION_VALIDITY_SECONDS,
          pollIntervalMs: raw.POLL_INTERVAL_MS,
          stuckTxTimeoutMs: raw.STUCK_TX_TIMEOUT_MS,
        },
      }),
    );
  },
  { name: 'replanner', dependencies: ['postgres', 'settlement-chain', 'settlement-metrics', 'relayer-outbox', 'temporary-wallet-keys'] },
);
