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
  /** New wallets refused: by the per-payout quota, a client's budget (NEW_WALLETS_PER_CLIENT_PER_MINUTE) or the gateway-wide ceiling. */
  newWalletsRefused: Counter<'reason'>;
}

export function registerWalletControlMetrics(registry: Registry): WalletControlMetrics {
  const used = new Gauge({
    name: 'wallet_control_hd_index_space_used_ratio',
    help:
      "Share of the HD index space (2^31 temporary wallets per xpub) the sequence has handed out, as of this process's last " +
      'reservation (alert on max across replicas)',
    registers: [registry],
  });
  const payoutQuotaStoreErrors = new Counter({
    name: 'wallet_control_payout_quota_store_errors_total',
    help: 'Create Wallet requests whose quota and ceiling were counted in this process only, because Redis did not answer',
    registers: [registry],
  });
  const newWalletsRefused = new Counter({
    name: 'wallet_control_new_wallets_refused_total',
    help:
      'New wallets refused with 429: reason payout_quota (PAYOUT_WALLET_QUOTA_MAX), client_limit ' +
      '(NEW_WALLETS_PER_CLIENT_PER_MINUTE) or gateway_ceiling (NEW_WALLETS_PER_MINUTE)',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of ['payout_quota', 'client_limit', 'gateway_ceiling']) newWalletsRefused.inc({ reason }, 0);
  return {
    // A ratio for people and alerts: float precision is plenty (2^31 fits a double exactly).
    hdIndexesReserved: (highestIndex) => used.set(Number(highestIndex + 1n) / Number(HD_INDEX_SPACE)),
    payoutQuotaStoreErrors,
    newWalletsRefused,
  };
}
