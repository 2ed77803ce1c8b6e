import type { FastifyBaseLogger } from 'fastify';
import fp from 'fastify-plugin';
import type { WalletControlConfig } from '../config';
import type { WalletControlMetrics } from '../metrics';
import { PayoutQuota } from '../services/payout-quota';

declare module 'fastify' {
  interface FastifyInstance {
    payoutQuota: PayoutQuota;
  }
}

const STORE_ERROR_LOG_INTERVAL_MS = 10_000;

/** Redis did not answer the quota's count: this process's counts decide; counted, and logged at most every 10 s. */
function storeErrorReporter(log: FastifyBaseLogger, metrics: WalletControlMetrics): (error: Error) => void {
  let lastLogged = 0;
  return (error) => {
    metrics.payoutQuotaStoreErrors.inc();
    if (Date.now() - lastLogged < STORE_ERROR_LOG_INTERVAL_MS) return;
    lastLogged = Date.now();
    log.warn(
      { err: error },
      'payout quota store (Redis) unavailable; each replica counts the quota and the ceiling on its own until it answers',
    );
  };
}

export const payoutQuota = fp<{ config: WalletControlConfig }>(
  async (app, { config }) => {
    const metrics = app.walletControlMetrics;
    const quota = new PayoutQuota(app.redis, {
      ...config.newWalletLimits,
      keyPrefix: config.raw.REDIS_PREFIX,
      onStoreError: storeErrorReporter(app.log, metrics),
      onRefused: (reason) => metrics.newWalletsRefused.inc({ reason }),
    });
    // The counts of the last wallets reach Redis before it closes.
    app.settleBeforeClose(() => quota.settled());
    app.decorate('payoutQuota', quota);
  },
  { name: 'payout-quota', dependencies: ['redis', 'wallet-control-metrics'] },
);
