import fp from 'fastify-plugin';
import { registerWalletControlMetrics, type WalletControlMetrics } from '../metrics';

declare module 'fastify' {
  interface FastifyInstance {
    walletControlMetrics: WalletControlMetrics;
  }
}

export const walletControlMetrics = fp(
  async (app) => {
    app.decorate('walletControlMetrics', registerWalletControlMetrics(app.metrics));
  },
  { name: 'wallet-control-metrics' },
);
