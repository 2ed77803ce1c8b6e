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

interface QueuedCheck {
  payoutAddress: string;
  resolve: (refusal: GatewayError | undefined) => void;
}

/** A window's wallets created since the last command, and when the window's key expires (ms). */
interface QueuedCount {
  increment: number;
  expiresAt: number;
}

// The command of one moment: the windows of the wallets created since the last one are counted
// (INCRBY, PEXPIREAT), then the windows of the checks asked meanwhile read (MGET), atomically.
// KEYS: the counted windows, then the windows read; ARGV[1]: how many are counted, then each
// counted window's increment and expiry (ms).
const QUOTA_SCRIPT = `
local counted = tonumber(ARGV[1])
for i = 1, counted do
  redis.call('INCRBY', KEYS[i], ARGV[2 * i])
  redis.call('PEXPIREAT', KEYS[i], ARGV[2 * i + 1])
end
if #KEYS > counted then return redis.call('MGET', unpack(KEYS, counted + 1)) end
return {}`;
const QUOTA_COMMAND = 'gatewayPayoutQuota';

type QuotaCommand = (numberOfKeys: number, ...keysAndArgs: Array<string | number>) => Promise<Array<string | null>>;

/**
 * New wallets per payout address (in fixed windows) and across the gateway per minute, counted in
 * Redis and shared by every replica, as the rate limits are. Redis rather than PostgreSQL: Create
 * Wallet is the hottest write path, and counting a payout address's recent wallets there would cost
 * an index on (payout_address, created_at) that every insert maintains and a statement per request.
 *
 * Every check and count of the same moment (one turn of the event loop) is one command: a script
 * that counts the wallets created since the last command and reads both windows of each check
 * asked meanwhile. Under load a new wallet costs one Redis command, shared with the others of its
 * moment, where a check (MGET) and a count (MULTI of four) cost two of their own.
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
  private checks: QueuedCheck[] = [];
  /** Windows to count in Redis with the next command, and how many wallets that is. */
  private counts = new Map<string, QueuedCount>();
  private walletsCounted = 0;
  private flushScheduled = false;
  private readonly flushing = new Set<Promise<void>>();
  private readonly command: QuotaCommand;

  constructor(
    redis: IORedis,
    private readonly options: PayoutQuotaOptions,
  ) {
    redis.defineCommand(QUOTA_COMMAND, { lua: QUOTA_SCRIPT });
    // Sent as a pipeline of its own, written at once: the client's auto-pipelining would hold it
    // for another turn of the event loop (several ms under load), after the one `flush` already
    // waited to gather the moment's checks, and every new wallet waits for this answer.
    this.command = async (numberOfKeys, ...keysAndArgs) => {
      const pipeline = redis.pipeline();
      (pipeline as unknown as Record<string, (...args: Array<string | number>) => unknown>)[QUOTA_COMMAND]!(numberOfKeys, ...keysAndArgs);
      const [reply] = (await pipeline.exec()) ?? [];
      if (!reply) throw new Error('the payout quota script got no reply');
      if (reply[0]) throw reply[0];
      return reply[1] as Array<string | null>;
    };
  }

  /** The 429 for a payout address that has had its quota in this window, or for the gateway past its ceiling; undefined when neither. */
  refusal(payoutAddress: string): Promise<GatewayError | undefined> {
    return new Promise((resolve) => {
      this.checks.push({ payoutAddress, resolve });
      this.scheduleFlush();
    });
  }

  /** A refusal of `refusal()` was answered (no wallet of that request existed): counted for the metric. */
  refused(refusal: GatewayError): void {
    this.options.onRefused?.(refusal.code === 'new_wallet_ceiling' ? 'gateway_ceiling' : 'payout_quota');
  }

  /** Counts a wallet just created for the payout address (not awaited by the request: its answer never waits on Redis). */
  count(payoutAddress: string): void {
    for (const window of [this.payoutWindow(payoutAddress), this.gatewayWindow()]) {
      this.local.set(window.key, (this.local.get(window.key) ?? 0) + 1, { ttl: Math.max(1, window.endsAt - Date.now()) });
      const queued = this.counts.get(window.key);
      if (queued) queued.increment += 1;
      else this.counts.set(window.key, { increment: 1, expiresAt: window.endsAt + 1_000 });
    }
    this.walletsCounted += 1;
    this.scheduleFlush();
  }

  /** Resolves once every check and count asked so far has been answered by Redis (or failed): before Redis closes. */
  async settled(): Promise<void> {
    while (this.flushScheduled || this.flushing.size > 0) {
      await (this.flushScheduled ? new Promise(setImmediate) : Promise.all(this.flushing));
    }
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      const flushing = this.flush().finally(() => this.flushing.delete(flushing));
      this.flushing.add(flushing);
    });
  }

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    const checks = this.checks;
    const counts = this.counts;
    const walletsCounted = this.walletsCounted;
    this.checks = [];
    this.counts = new Map();
    this.walletsCounted = 0;
    const gateway = this.gatewayWindow();
    const payouts = checks.map((check) => this.payoutWindow(check.payoutAddress));
    const read = [gateway.key, ...new Set(payouts.map((window) => window.key))];
    const counted = [...counts.entries()];
    let values: Map<string, number>;
    try {
      const answer = await this.command(
        counted.length + (checks.length > 0 ? read.length : 0),
        ...counted.map(([key]) => key),
        ...(checks.length > 0 ? read : []),
        counted.length,
        ...counted.flatMap(([, count]) => [count.increment, count.expiresAt]),
      );
      values = new Map(read.map((key, index) => [key, Number(answer[index] ?? 0)]));
    } catch (error) {
      // Each wallet that could not be counted and each request checked without Redis is reported.
      for (let i = 0; i < walletsCounted + checks.length; i += 1) this.options.onStoreError(error as Error);
      values = new Map(read.map((key) => [key, this.local.get(key) ?? 0]));
    }
    checks.forEach((check, index) => {
      check.resolve(this.refusalFor(payouts[index]!, gateway, values));
    });
  }

  private refusalFor(payout: Window, gateway: Window, counts: Map<string, number>): GatewayError | undefined {
    if ((counts.get(payout.key) ?? 0) >= this.options.max) return payoutQuotaExceeded(this.options, (payout.endsAt - Date.now()) / 1000);
    if ((counts.get(gateway.key) ?? 0) >= this.options.newWalletsPerMinute) {
      return newWalletCeilingReached(this.options.newWalletsPerMinute, (gateway.endsAt - Date.now()) / 1000);
    }
    return undefined;
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
