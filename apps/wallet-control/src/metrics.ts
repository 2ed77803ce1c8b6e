import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * Temporary wallets are the non-hardened children 0 … 2^31 − 1 of the configured xpub: once the
 * sequence passes the last one, Create Wallet can make no more (a new xpub means a new database).
 */
export const HD_INDEX_SPACE = 2n ** 31n;

export interface WalletControlMetrics {
  /** A batch of HD indexes was reserved from the sequence; the highest of them is counted as used. */
  hdIndexesReserved(highestIndex: bigint): void;
  payoutQuotaStoreErrors: Counter;
}

export function registerWalletControlMetrics(registry: Registry): WalletControlMetrics {
  const used = new Gauge({
    name: 'wallet_hd_index_space_used_ratio',
    help: "Share of the HD index space (2^31 temporary wallets per xpub) the sequence has handed out, as of this process's last reservation (alert on max across replicas)",
    registers: [registry],
  });
  const payoutQuotaStoreErrors = new Counter({
    name: 'payout_quota_store_errors_total',
    help: 'Create Wallet requests let through without the per-payout quota because Redis did not answer',
    registers: [registry],
  });
  return {
    // A ratio for people and alerts: float precision is plenty (2^31 fits a double exactly).
    hdIndexesReserved: (highestIndex) => used.set(Number(highestIndex + 1n) / Number(HD_INDEX_SPACE)),
    payoutQuotaStoreErrors,
  };
}
