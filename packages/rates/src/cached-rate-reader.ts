import { randomBytes } from 'node:crypto';
import type IORedis from 'ioredis';
import { GatewayError, type CurrencyCode, type ExactRate, type RateTable } from '@gateway/domain';
import type { RateReader, RateSnapshot } from './rate-reader';
import { isSupportedCurrency, type RateSource } from './rate-source';

/** What the reader logs through (pino's signature). */
export interface RateLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface CachedRateReaderOptions {
  source: RateSource;
  /** The API apps' client (fails fast while Redis is down: the reader then works from memory and the source). */
  redis: IORedis;
  /** REDIS_PREFIX: keys are `<prefix>:rates:<source>` and `<prefix>:rates:<source>:lock`. */
  keyPrefix: string;
  /** How often the rates are refreshed; a snapshot fetched this recently by any replica is not fetched again. */
  refreshMs: number;
  /** A snapshot older than this (from its `asOf`) is refused with a 503, never used. */
  maxAgeMs: number;
  /** The pause after a failed or locked refresh; default min(refreshMs, 60 s). */
  retryMs?: number;
  /** How long one replica holds the right to fetch; default 30 s (well over a fetch's time limit). */
  lockMs?: number;
  /** How long start() waits for a Redis connection still being made; default 2 s. */
  redisReadyTimeoutMs?: number;
  now?: () => number;
  logger?: RateLogger;
}

export type RefreshOutcome =
  /** A snapshot fetched less than refreshMs ago was in Redis (or memory): nothing fetched. */
  | 'cached'
  /** This process fetched the source (and stored the snapshot in Redis when it could). */
  | 'fetched'
  /** Another replica holds the fetch lock; its snapshot is picked up on the next refresh. */
  | 'locked'
  /** The source failed; the snapshot in memory stays in use while it is young enough. */
  | 'failed';

interface Held {
  snapshot: RateSnapshot;
  /** When a replica last fetched the source (the snapshot's asOf can be much older: the ECB's Friday rates on Sunday). */
  fetchedAt: number;
}

const noLogger: RateLogger = { info: () => undefined, warn: () => undefined };
const RELEASE_LOCK = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/**
 * Exchange rates for the API apps. `current()` never does I/O: it answers the snapshot held in
 * memory, or a 503 when there is none or it is older than the maximum age. A background refresh
 * keeps that snapshot current: it reads the shared snapshot from Redis, and only when that is due
 * does one replica (a short SET NX PX lock) fetch the source and store the result with its age
 * for the others. When Redis is down each replica fetches the source itself, and the last good
 * snapshot stays in memory, so a Redis blip never breaks a conversion.
 */
export class CachedRateReader implements RateReader {
  readonly source: RateSource;
  private readonly redis: IORedis;
  private readonly cacheKey: string;
  private readonly lockKey: string;
  private readonly refreshMs: number;
  private readonly maxAgeMs: number;
  private readonly retryMs: number;
  private readonly lockMs: number;
  private readonly redisReadyTimeoutMs: number;
  private readonly now: () => number;
  private readonly log: RateLogger;
  private held: Held | undefined;
  private inFlight: Promise<RefreshOutcome> | undefined;
  private lastOutcome: RefreshOutcome | undefined;
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private stopped = false;

  constructor(options: CachedRateReaderOptions) {
    this.source = options.source;
    this.redis = options.redis;
    this.cacheKey = `${options.keyPrefix}:rates:${options.source.cacheKey}`;
    this.lockKey = `${this.cacheKey}:lock`;
    this.refreshMs = options.refreshMs;
    this.maxAgeMs = options.maxAgeMs;
    this.retryMs = options.retryMs ?? Math.min(options.refreshMs, 60_000);
    this.lockMs = options.lockMs ?? 30_000;
    this.redisReadyTimeoutMs = options.redisReadyTimeoutMs ?? 2_000;
    this.now = options.now ?? Date.now;
    this.log = options.logger ?? noLogger;
  }

  async current(): Promise<RateSnapshot> {
    const held = this.held;
    const retryAfterSeconds = this.retryMs / 1000;
    if (!held) {
      throw new GatewayError(
        'service_unavailable',
        `exchange rates are not available yet: the rate source (${this.source.name}) has not answered since this server started; ` +
          `retry in a minute`,
        undefined,
        { retryAfterSeconds },
      );
    }
    const age = this.now() - held.snapshot.asOf.getTime();
    if (age > this.maxAgeMs) {
      throw new GatewayError(
        'service_unavailable',
        `exchange rates are too old to use: the newest from ${held.snapshot.source} are of ${held.snapshot.asOf.toISOString()}, ` +
          `${formatDuration(age)} ago, and this gateway refuses rates older than ${formatDuration(this.maxAgeMs)}; retry later`,
        undefined,
        { retryAfterSeconds },
      );
    }
    return held.snapshot;
  }

  /** The snapshot in memory and its age, whether or not it is still young enough (metrics, logs). */
  status(): { source: string; asOf: Date; fetchedAt: Date; ageMs: number; usable: boolean } | undefined {
    if (!this.held) return undefined;
    const ageMs = this.now() - this.held.snapshot.asOf.getTime();
    return {
      source: this.held.snapshot.source,
      asOf: this.held.snapshot.asOf,
      fetchedAt: new Date(this.held.fetchedAt),
      ageMs,
      usable: ageMs <= this.maxAgeMs,
    };
  }

  /** Loads the rates once (waiting briefly for Redis to connect), then keeps refreshing them in the background until stop(). */
  async start(): Promise<void> {
    if (this.started || this.stopped) return;
    this.started = true;
    await this.waitForRedis();
    await this.refresh();
    this.schedule();
  }

  /** Stops the background refresh and waits for one in flight (call before Redis is closed). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight?.catch(() => undefined);
    await this.source.close?.();
  }

  /** One refresh; concurrent calls share it. Never throws. */
  refresh(): Promise<RefreshOutcome> {
    this.inFlight ??= this.refreshOnce()
      .catch((error: unknown): RefreshOutcome => {
        this.log.warn({ err: error, source: this.source.name }, 'exchange rate refresh failed');
        return 'failed';
      })
      .then((outcome) => {
        this.lastOutcome = outcome;
        this.inFlight = undefined;
        return outcome;
      });
    return this.inFlight;
  }

  private async refreshOnce(): Promise<RefreshOutcome> {
    let redisUp = true;
    try {
      const cached = await this.readCache();
      if (cached) this.adopt(cached);
    } catch (error) {
      redisUp = false;
      this.log.warn({ err: error, source: this.source.name }, 'exchange rate cache unreadable (Redis): working from memory and the source');
    }
    if (this.held && this.now() - this.held.fetchedAt < this.refreshMs) return 'cached';

    const token = randomBytes(12).toString('hex');
    let locked = false;
    if (redisUp) {
      try {
        if ((await this.redis.set(this.lockKey, token, 'PX', this.lockMs, 'NX')) !== 'OK') return 'locked';
        locked = true;
      } catch (error) {
        redisUp = false;
        this.log.warn({ err: error, source: this.source.name }, 'exchange rate lock unavailable (Redis): fetching the source without it');
      }
    }
    try {
      let fetched: RateSnapshot;
      try {
        fetched = await this.source.fetch();
        this.check(fetched);
      } catch (error) {
        this.log.warn(
          { err: error, source: this.source.name, asOf: this.held?.snapshot.asOf.toISOString() },
          'exchange rate source failed; keeping the rates in memory while they are young enough',
        );
        return 'failed';
      }
      const previous = this.held?.snapshot;
      // A source answering older rates than we hold (a stale mirror) does not replace them.
      const snapshot = previous && previous.asOf > fetched.asOf ? previous : fetched;
      this.held = { snapshot, fetchedAt: this.now() };
      if (snapshot.asOf.getTime() !== previous?.asOf.getTime()) {
        this.log.info(
          { source: snapshot.source, asOf: snapshot.asOf.toISOString(), currencies: snapshot.rates.size },
          'exchange rates updated',
        );
      }
      if (redisUp) {
        try {
          await this.redis.set(this.cacheKey, serialize(this.held), 'PX', this.maxAgeMs);
        } catch (error) {
          this.log.warn({ err: error, source: this.source.name }, 'exchange rates could not be stored in Redis');
        }
      }
      return 'fetched';
    } finally {
      if (locked) await this.redis.eval(RELEASE_LOCK, 1, this.lockKey, token).catch(() => undefined);
    }
  }

  private check(snapshot: RateSnapshot): void {
    const asOf = snapshot.asOf.getTime();
    if (Number.isNaN(asOf)) throw new Error(`${this.source.name} gave rates without a valid date`);
    // A clock a little ahead is fine; rates dated tomorrow or later are not believed.
    if (asOf > this.now() + 86_400_000)
      throw new Error(`${this.source.name} gave rates dated in the future (${snapshot.asOf.toISOString()})`);
  }

  private adopt(cached: Held): void {
    const held = this.held;
    const newer = !held || cached.snapshot.asOf > held.snapshot.asOf;
    const sameButFetchedLater =
      held && cached.snapshot.asOf.getTime() === held.snapshot.asOf.getTime() && cached.fetchedAt > held.fetchedAt;
    if (newer || sameButFetchedLater) this.held = cached;
  }

  private async readCache(): Promise<Held | undefined> {
    const text = await this.redis.get(this.cacheKey);
    if (text === null) return undefined;
    const held = deserialize(text);
    if (!held) this.log.warn({ key: this.cacheKey }, 'cached exchange rates are unreadable; fetching the source');
    return held;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh().finally(() => this.schedule());
    }, this.nextDelay());
    this.timer.unref();
  }

  private nextDelay(): number {
    if (!this.held || this.lastOutcome === 'failed' || this.lastOutcome === 'locked') return this.retryMs;
    const due = this.held.fetchedAt + this.refreshMs - this.now();
    // A little jitter so replicas started together do not all ask at the same moment.
    const jitter = Math.floor(Math.random() * Math.min(this.refreshMs * 0.05, 30_000));
    return Math.max(due, 1_000) + jitter;
  }

  private async waitForRedis(): Promise<void> {
    const redis = this.redis;
    if (!['connecting', 'connect', 'reconnecting'].includes(redis.status)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, this.redisReadyTimeoutMs);
      redis.once('ready', done);
    });
  }
}

interface Stored {
  v: 1;
  source: string;
  asOf: number;
  fetchedAt: number;
  /** `numerator/denominator` strings: exact, never floats. */
  rates: Record<string, string>;
}

function serialize({ snapshot, fetchedAt }: Held): string {
  const rates: Record<string, string> = {};
  for (const [code, rate] of snapshot.rates) rates[code] = `${rate.numerator}/${rate.denominator}`;
  const stored: Stored = { v: 1, source: snapshot.source, asOf: snapshot.asOf.getTime(), fetchedAt, rates };
  return JSON.stringify(stored);
}

function deserialize(text: string): Held | undefined {
  try {
    const stored = JSON.parse(text) as Partial<Stored>;
    if (stored.v !== 1 || typeof stored.source !== 'string' || !Number.isFinite(stored.asOf) || !Number.isFinite(stored.fetchedAt))
      return undefined;
    if (typeof stored.rates !== 'object' || stored.rates === null) return undefined;
    const rates = new Map<CurrencyCode, ExactRate>();
    for (const [code, value] of Object.entries(stored.rates)) {
      const match = /^([1-9]\d*)\/([1-9]\d*)$/.exec(String(value));
      if (!isSupportedCurrency(code) || !match) return undefined;
      rates.set(code, { numerator: BigInt(match[1] as string), denominator: BigInt(match[2] as string) });
    }
    const table: RateTable = rates;
    return {
      snapshot: { rates: table, asOf: new Date(stored.asOf as number), source: stored.source },
      fetchedAt: stored.fetchedAt as number,
    };
  } catch {
    return undefined;
  }
}

/** "3 days", "5 hours", "12 minutes", "40 seconds". */
export function formatDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const unit = (value: number, name: string) => `${value} ${name}${value === 1 ? '' : 's'}`;
  if (seconds >= 2 * 86_400) return unit(Math.floor(seconds / 86_400), 'day');
  if (seconds >= 2 * 3_600) return unit(Math.floor(seconds / 3_600), 'hour');
  if (seconds >= 2 * 60) return unit(Math.floor(seconds / 60), 'minute');
  return unit(seconds, 'second');
}
