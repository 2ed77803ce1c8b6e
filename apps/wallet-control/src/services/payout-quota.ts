import type IORedis from 'ioredis';
import { LRUCache } from 'lru-cache';
import { newWalletCeilingReached, payoutQuotaExceeded, type GatewayError } from '@gateway/domain';

export interface PayoutQuotaOptions {
  /** New wallets per payout address per window (PAYOUT_WALLET_QUOTA_MAX). */
  max: number;
  windowSeconds: number;
  /** New wallets per minute across the gateway, whatever the payout address (NEW_WALLETS_PER_MINUTE). */
  newWalletsPerMinute: number;
  /** REDIS_PREFIX: the counters live beside the rate limits'. */
  keyPrefix: string;
  /** Redis did not answer: the counts of this process decide instead (called for each such request). */
  onStoreError: (error: Error) => void;
  /** A new wallet was refused (for the metric). */
  onRefused?: (reason: NewWalletRefusal) => void;
}

export type NewWalletRefusal = 'payout_quota' | 'gateway_ceiling';

const MINUTE_MS = 60_000;
// Windows this process counts on its own (payout addresses seen this window, plus the gateway's):
// what decides while Redis does not answer. ~100 bytes each.
const LOCAL_WINDOWS = 100_000;

interface Window {
  key: string;
  endsAt: number;
}

/**
 * New wallets per payout address (in fixed windows) and across the gateway per minute, counted in
 * Redis and shared by every replica, as the rate limits are. Redis rather than PostgreSQL: Create
 * Wallet is the hottest write path, and counting a payout address's recent wallets there would cost
 * an index on (payout_address, created_at) that every insert maintains and a statement per request.
 * Both counts are read in one command (MGET) and, for a new wallet, written in one transaction,
 * pipelined with the other commands of the same moment: the ceiling costs no round trip of its own.
 *
 * When Redis does not answer, the counts this process keeps beside Redis's decide (never open):
 * each replica then holds the quota and the ceiling on its own, so N replicas let up to N times
 * through; each such request is counted in wallet_control_payout_quota_store_errors_total. A fixed window lets up
 * to twice the quota through across a window boundary.
 *
 * Only wallets actually created count (a repeat, a refusal or an error never does), so the quota is
 * checked before the insert and counted after it: requests already in flight when the quota is
 * reached may still create their wallets, a few over the quota at most.
 */
export class PayoutQuota {
  private readonly local = new LRUCache<string, number>({ max: LOCAL_WINDOWS });

  constructor(
    private readonly redis: IORedis,
    private readonly options: PayoutQuotaOptions,
  ) {}

  /** The 429 for a payout address that has had its quota in this window, or for the gateway past its ceiling; undefined when neither. */
  async refusal(payoutAddress: string): Promise<GatewayError | undefined> {
    const payout = this.payoutWindow(payoutAddress);
    const gateway = this.gatewayWindow();
    let counts: [number, number];
    try {
      const [forPayout, forGateway] = await this.redis.mget(payout.key, gateway.key);
      counts = [Number(forPayout ?? 0), Number(forGateway ?? 0)];
    } catch (error) {
      this.options.onStoreError(error as Error);
      counts = [this.local.get(payout.key) ?? 0, this.local.get(gateway.key) ?? 0];
    }
    if (counts[0] >= this.options.max) return payoutQuotaExceeded(this.options, (payout.endsAt - Date.now()) / 1000);
    if (counts[1] >= this.options.newWalletsPerMinute) {
      return newWalletCeilingReached(this.options.newWalletsPerMinute, (gateway.endsAt - Date.now()) / 1000);
    }
    return undefined;
  }

  /** A refusal of `refusal()` was answered (no wallet of that request existed): counted for the metric. */
  refused(refusal: GatewayError): void {
    this.options.onRefused?.(refusal.code === 'new_wallet_ceiling' ? 'gateway_ceiling' : 'payout_quota');
  }

  /** Counts a wallet just created for the payout address (not awaited by the request: its answer never waits on Redis). */
  count(payoutAddress: string): void {
    const payout = this.payoutWindow(payoutAddress);
    const gateway = this.gatewayWindow();
    for (const window of [payout, gateway]) {
      this.local.set(window.key, (this.local.get(window.key) ?? 0) + 1, { ttl: Math.max(1, window.endsAt - Date.now()) });
    }
    this.redis
      .multi()
      .incr(payout.key)
      .pexpireat(payout.key, payout.endsAt + 1_000)
      .incr(gateway.key)
      .pexpireat(gateway.key, gateway.endsAt + 1_000)
      .exec()
      .catch((error: Error) => this.options.onStoreError(error));
  }

  private payoutWindow(payoutAddress: string): Window {
    const windowMs = this.options.windowSeconds * 1000;
    const window = Math.floor(Date.now() / windowMs);
    return { key: `${this.options.keyPrefix}:payout-quota:${payoutAddress.toLowerCase()}:${window}`, endsAt: (window + 1) * windowMs };
  }

  private gatewayWindow(): Window {
    const minute = Math.floor(Date.now() / MINUTE_MS);
    return { key: `${this.options.keyPrefix}:new-wallets:${minute}`, endsAt: (minute + 1) * MINUTE_MS };
  }
}
