import type IORedis from 'ioredis';
import { payoutQuotaExceeded, type GatewayError } from '@gateway/domain';

export interface PayoutQuotaOptions {
  /** New wallets per payout address per window (PAYOUT_WALLET_QUOTA_MAX). */
  max: number;
  windowSeconds: number;
  /** REDIS_PREFIX: the counters live beside the rate limits'. */
  keyPrefix: string;
  /** Redis did not answer: the wallet is created anyway (called for each such request). */
  onStoreError: (error: Error) => void;
}

/**
 * New wallets per payout address, in fixed windows counted in Redis and shared by every replica,
 * as the rate limits are. Redis rather than PostgreSQL: Create Wallet is the hottest write path,
 * and counting a payout address's recent wallets there would cost an index on (payout_address,
 * created_at) that every insert maintains and a statement per request; a GET and, for a new
 * wallet, an INCR, pipelined with the other commands of the same moment, cost neither. The price:
 * like the rate limits it fails open (Redis away: wallets are created, each such request counted in
 * payout_quota_store_errors_total), and a fixed window lets up to twice the quota through across a
 * window boundary.
 *
 * Only wallets actually created count (a repeat, a refusal or an error never does), so the quota is
 * checked before the insert and counted after it: requests already in flight when the quota is
 * reached may still create their wallets, a few over the quota at most.
 */
export class PayoutQuota {
  constructor(
    private readonly redis: IORedis,
    private readonly options: PayoutQuotaOptions,
  ) {}

  /** The 429 for a payout address that has had its quota in this window, or undefined. */
  async refusal(payoutAddress: string): Promise<GatewayError | undefined> {
    const { key, endsAt } = this.window(payoutAddress);
    let count: string | null;
    try {
      count = await this.redis.get(key);
    } catch (error) {
      this.options.onStoreError(error as Error);
      return undefined;
    }
    if (Number(count ?? 0) < this.options.max) return undefined;
    return payoutQuotaExceeded(this.options, (endsAt - Date.now()) / 1000);
  }

  /** Counts a wallet just created for the payout address (not awaited by the request: its answer never waits on Redis). */
  count(payoutAddress: string): void {
    const { key, endsAt } = this.window(payoutAddress);
    this.redis
      .multi()
      .incr(key)
      .pexpireat(key, endsAt + 1_000)
      .exec()
      .catch((error: Error) => this.options.onStoreError(error));
  }

  private window(payoutAddress: string): { key: string; endsAt: number } {
    const windowMs = this.options.windowSeconds * 1000;
    const window = Math.floor(Date.now() / windowMs);
    return { key: `${this.options.keyPrefix}:payout-quota:${payoutAddress.toLowerCase()}:${window}`, endsAt: (window + 1) * windowMs };
  }
}
