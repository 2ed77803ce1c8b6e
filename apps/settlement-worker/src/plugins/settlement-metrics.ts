import fp from 'fastify-plugin';
import { SettlementMetrics } from '../metrics';

declare module 'fastify' {
  interface FastifyInstance {
    settlementMetrics: SettlementMetrics;
  }
}

export const settlementMetrics = fp(
  async (app) => {
    app.decorate('settlementMetrics', new SettlementMetrics(app.metrics));
  },
  { name: 'settlement-metrics' },
);
