import fp from 'fastify-plugin';
import { PayoutRepository, SettlementRepository } from '@gateway/db/settlement-worker';
import { enqueueDeliveries } from '@gateway/queue';
import type { SettlementConfig } from '../config';
import { crashHookFor } from '../crash-points';
import { payoutCosting } from '../legs/payout-costing';
import { PayoutLegDriver } from '../legs/payout-leg-driver';
import { SettlementService } from '../services/settlement-service';

declare module 'fastify' {
  interface FastifyInstance {
    /** Settles one final deposit: plans the legs, signs, relays, confirms, and writes its callback delivery. */
    settlementService: SettlementService;
  }
}

export const settlementService = fp<{ config: SettlementConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    const { pool, settlementChain: chain, settlementMetrics: metrics, log } = app;
    const payouts = new PayoutRepository(pool);
    const legs = new PayoutLegDriver({
      payouts,
      chain,
      finality: app.payoutFinality,
      outbox: app.relayerOutbox,
      metrics,
      log,
      crash: crashHookFor(config.crashAt),
      settings: {
        stuckTxTimeoutMs: raw.STUCK_TX_TIMEOUT_MS,
        authorizationValiditySeconds: raw.AUTHORIZATION_VALIDITY_SECONDS,
      },
    });
    app.decorate(
      'settlementService',
      new SettlementService({
        settlements: new SettlementRepository(pool),
        payouts,
        legs,
        keys: app.temporaryWalletKeys,
        // A forwarded deposit's delivery, job id = delivery id.
        callbacks: { enqueue: (deliveryId) => enqueueDeliveries(app.callbackQueue, [deliveryId]) },
        costing: payoutCosting(config, chain, app.relayer),
        metrics,
        log,
        settings: {
          platformFeeAddress: config.platformFeeAddress,
          settledToken: config.tokenAddress,
          dustThreshold: config.dustThreshold,
          authorizationValiditySeconds: raw.AUTHORIZATION_VALIDITY_SECONDS,
        },
      }),
    );
  },
  {
    name: 'settlement-service',
    dependencies: [
      'postgres',
      'settlement-chain',
      'settlement-metrics',
      'temporary-wallet-keys',
      'relayer',
      'payout-finality',
      'relayer-outbox',
      'callback-queue',
    ],
  },
);
