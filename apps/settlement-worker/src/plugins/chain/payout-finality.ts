import fp from 'fastify-plugin';
import type { SettlementConfig } from '../../config';
import { PayoutFinality } from '../../legs/payout-finality';

declare module 'fastify' {
  interface FastifyInstance {
    payoutFinality: PayoutFinality;
  }
}

export const payoutFinality = fp<{ config: SettlementConfig }>(
  async (app, { config }) => {
    const finality = new PayoutFinality({
      chain: app.settlementChain,
      confirmations: config.raw.CONFIRMATIONS,
      metrics: app.settlementMetrics,
      log: app.log,
    });
    // Asked at boot so /metrics and the log say which rule applies before the first payout; asked again at every check.
    await finality.refresh();
    app.decorate('payoutFinality', finality);
  },
  { name: 'payout-finality', dependencies: ['settlement-chain', 'settlement-metrics'] },
);
