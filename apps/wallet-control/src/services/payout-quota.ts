import type IORedis from 'ioredis';
import { LRUCache } from 'lru-cache';
import {
  countersCharged,
  countersRead,
  newWalletCounters,
  newWalletDecision,
  newWalletRefusalReason,
  type GatewayError,
  type NewWalletAsk,
  type NewWalletCounter,
  type NewWalletCounters,
  type NewWalletDecision,
  type NewWalletLimits,
  type NewWalletRefusalReason,
} from '@gateway/domain';

export interface PayoutQuotaOptions extends NewWalletLimits {
  /** REDIS_PREFIX: the counters live beside the rate limits'. */
  keyPrefix: string;
  /** Redis did not answer: the counts of this process decide instead (called for each such request). */
  onStoreError: (error: Error) => void;
  /** A new wallet was refused (for the metric). */
  onRefused?: (reason: NewWalletRefusalReason) => void;
}

// Counters this process keeps on its own (the windows seen, the claims of the last day): what
// decides while Redis does not answer. ~100 bytes each.
const LOCAL_COUNTERS = 100_000;

interface QueuedCheck {
  ask: NewWalletAsk;
  wallet: string;
  resolve: (reading: NewWalletReading) => void;
}

/** The counters of a request as Redis (or this process, without Redis) counted them when asked: admit() decides on it. */
export interface NewWalletReading {
  /** The wallet asked for (its dedupe key): identical requests share one admission. */
  wallet: string;
  counters: NewWalletCounters;
  values: ReadonlyMap<string, number>;
}

interface InFlightWallet {
  decision: NewWalletDecision;
  /** The counters it holds a place in. */
  held: string[];
  /** Its requests not settled yet. */
  holders: number;
  /** One of them made the wallet. */
  created: boolean;
}

/** What admit() decided; an admitted request holds its place in the counters until settle() says whether it made a wallet. */
export interface NewWalletAdmission extends NewWalletDecision {
  settle(created: boolean): void;
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
 * The limits on new wallets (new-wallet-limits in @gateway/domain: the quota per payout address
 * and callback origin, each client's budget per minute, the gateway-wide ceiling, and in pinned
 * mode the claims that pass the last two), counted in Redis and shared by every replica, as the
 * rate limits are. Redis rather than PostgreSQL: Create Wallet is the hottest write path, and
 * counting a payout address's recent wallets there would cost an index on (payout_address,
 * created_at) that every insert maintains and a statement per request.
 *
 * Every check and count of the same moment (one turn of the event loop) is one command: a script
 * that counts the wallets created since the last command and reads every counter of each check
 * asked meanwhile. Under load a new wallet costs one Redis command, shared with the others of its
 * moment, where a check (MGET) and a count (MULTI) cost two of their own.
 *
 * When Redis does not answer, the counts this process keeps beside Redis's decide (never open):
 * each replica then holds the limits on its own, so N replicas let up to N times through; each such
 * request is counted in wallet_control_payout_quota_store_errors_total. A fixed window lets up to
 * twice the quota through across a window boundary.
 *
 * Only wallets actually created count (a repeat, a refusal or an error never does), so the limits
 * are checked before the insert and counted after it: requests already in flight when a limit is
 * reached may still create their wallets, a few over it at most.
 */
export class PayoutQuota {
  private readonly local = new LRUCache<string, number>({ max: LOCAL_COUNTERS });
  /** Places held by requests admitted and not settled yet, per counter (admit). */
  private readonly held = new Map<string, number>();
  /** The places of wallets made, counted by the next command: released once it has answered. */
  private placesCounted: string[][] = [];
  /** The admissions not settled yet, by the wallet asked for (its dedupe key). */
  private readonly inFlight = new Map<string, InFlightWallet>();
  private checks: QueuedCheck[] = [];
  /** Counters to count in Redis with the next command, and how many wallets that is. */
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

  /** Reads the request's counters, with the moment's other checks and counts in one command; admit() decides. */
  check(ask: NewWalletAsk, wallet: string): Promise<NewWalletReading> {
    return new Promise((resolve) => {
      this.checks.push({ ask, wallet, resolve });
      this.scheduleFlush();
    });
  }

  /**
   * Whether the request read may make a new wallet (its refusal, or none), and whether its origin
   * is claimed, counting the requests this process admitted that have not settled yet: a burst of
   * concurrent requests read the same counts, and without them all would pass (one client's whole
   * burst, past its budget). Only what the burst is charged to is held; a claim is what Redis
   * read, never a place held, or a burst on a new origin would pass as claimed.
   */
  admit(reading: NewWalletReading): NewWalletAdmission {
    let entry = this.inFlight.get(reading.wallet);
    if (!entry) {
      const claim = reading.counters.claim;
      const count = (counter: NewWalletCounter) => {
        const key = this.keyOf(counter);
        return (reading.values.get(key) ?? 0) + (counter === claim ? 0 : (this.held.get(key) ?? 0));
      };
      const decision = newWalletDecision(reading.counters, count, this.options, Date.now());
      if (decision.refusal) return { ...decision, settle: () => undefined };
      const held = countersCharged(reading.counters, decision.claimed)
        .filter((counter) => counter !== claim)
        .map((counter) => this.keyOf(counter));
      for (const key of held) this.held.set(key, (this.held.get(key) ?? 0) + 1);
      entry = { decision, held, holders: 0, created: false };
      this.inFlight.set(reading.wallet, entry);
    }
    // Identical requests in flight at once make one wallet (the insert's batch): one place for them all.
    const admitted = entry;
    admitted.holders += 1;
    let settled = false;
    return {
      ...admitted.decision,
      settle: (created) => {
        if (settled) return;
        settled = true;
        if (created) {
          this.count(reading.counters, admitted.decision.claimed);
          admitted.created = true;
        }
        admitted.holders -= 1;
        if (admitted.holders > 0) return;
        this.inFlight.delete(reading.wallet);
        // A wallet made keeps its place until the command that counts it in Redis has answered:
        // a request read before that would otherwise see neither.
        if (admitted.created) this.placesCounted.push(admitted.held);
        else this.release(admitted.held);
      },
    };
  }

  private release(held: readonly string[]): void {
    for (const key of held) {
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    }
  }

  /** A refusal of admit() was answered (no wallet of that request existed): counted for the metric. */
  refused(refusal: GatewayError): void {
    this.options.onRefused?.(newWalletRefusalReason(refusal));
  }

  /** Counts a wallet just created for the request (`claimed`: what admit() said). Not awaited: an answer never waits on Redis. */
  private count(counters: NewWalletCounters, claimed: boolean): void {
    // The windows the request was read in (a wallet made across a boundary counts in the one before).
    for (const counter of countersCharged(counters, claimed)) {
      const key = this.keyOf(counter);
      this.local.set(key, (this.local.get(key) ?? 0) + 1, { ttl: Math.max(1, counter.endsAt - Date.now()) });
      const queued = this.counts.get(key);
      if (queued) queued.increment += 1;
      else this.counts.set(key, { increment: 1, expiresAt: counter.endsAt + 1_000 });
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
    const placesCounted = this.placesCounted;
    this.placesCounted = [];
    this.checks = [];
    this.counts = new Map();
    this.walletsCounted = 0;
    const now = Date.now();
    const asked = checks.map((check) => newWalletCounters(check.ask, this.options, now));
    const read = [...new Set(asked.flatMap((counters) => countersRead(counters).map((counter) => this.keyOf(counter))))];
    const counted = [...counts.entries()];
    let values: Map<string, number>;
    try {
      const answer = await this.command(
        counted.length + read.length,
        ...counted.map(([key]) => key),
        ...read,
        counted.length,
        ...counted.flatMap(([, count]) => [count.increment, count.expiresAt]),
      );
      values = new Map(read.map((key, index) => [key, Number(answer[index] ?? 0)]));
    } catch (error) {
      // Each wallet that could not be counted and each request checked without Redis is reported.
      for (let i = 0; i < walletsCounted + checks.length; i += 1) this.options.onStoreError(error as Error);
      values = new Map(read.map((key) => [key, this.local.get(key) ?? 0]));
    }
    for (const held of placesCounted) this.release(held);
    checks.forEach((check, index) => {
      check.resolve({ wallet: check.wallet, counters: asked[index]!, values });
    });
  }

  private keyOf(counter: NewWalletCounter): string {
    return `${this.options.keyPrefix}:${counter.name}`;
  }
}
