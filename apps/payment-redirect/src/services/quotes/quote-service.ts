import { randomBytes } from 'node:crypto';
import type IORedis from 'ioredis';
import {
  convertToUsdMinorUnits,
  expectUsdc,
  feesOnTopEstimate,
  formatMinorUnits,
  quoteBandOf,
  scaleQuote,
  type CurrencyCode,
  type CustomerLocation,
  type ExpectationBasis,
  type FiatAmount,
} from '@gateway/domain';
import { ProviderCheckoutError, type ProviderAdapter, type ProviderRegistry } from '@gateway/providers';
import type { RateReader } from '@gateway/rates';

/** An order as a row of the checkout page (or Process Payment) prices it. */
export interface OrderToQuote {
  provider: string;
  amount: FiatAmount;
  currency: CurrencyCode;
  /**
   * Fees on top (fee-payer.ts): the fixed USDC to price instead of the amount (adapter.quoteUsdc, its
   * own bands), and the order's value in USDC the shop receives of it.
   */
  feesOnTop?: { usdc: bigint; orderUsdc: bigint };
  /** Where the customer is, when the payment host knows: a provider that prices per location (Coinbase) is asked for it. */
  location?: CustomerLocation;
}

/** How a provider prices an order: a fixed USDC amount (fees on top), the order amount, or the amount for the customer's location. */
type Pricing = 'usdc' | 'amount' | 'located';

/** What the customer pays and what the shop receives through one provider. */
export interface RowQuote {
  provider: string;
  /** `quote`: the provider's own (scaled from its band's quote); `estimate`: its documented fees. */
  basis: ExpectationBasis;
  /** What the wallet receives, USDC base units. */
  usdc: bigint;
  /** What the customer pays, fees included, a decimal string in `currency`; an estimate says the order amount. */
  total: string;
  currency: CurrencyCode;
  /** When the provider gave the quote it is scaled from (basis `quote` only). */
  quotedAt?: Date;
  /** Fees on top: `usdc` is the fixed amount bought; the shop receives `orderUsdc` of it. */
  feesOnTop?: { readonly orderUsdc: bigint };
}

export interface QuoteSettings {
  /** QUOTE_CACHE_MS: a quote is refreshed once this old, and served while the refresh runs for half as long again. */
  cacheMs: number;
  /** QUOTE_TIMEOUT_MS: how long one call to a provider's quote API may take before its row is an estimate for the period. */
  callTimeoutMs: number;
}

export type QuoteCallOutcome = 'ok' | 'refused' | 'unavailable' | 'timeout';
export type QuoteCacheResult = 'hit' | 'stale' | 'miss';

export interface QuoteMetrics {
  call(provider: string, outcome: QuoteCallOutcome): void;
  cache(provider: string, result: QuoteCacheResult): void;
  served(provider: string, basis: ExpectationBasis): void;
}

/** What the service logs through (pino's signature). */
export interface QuoteLogger {
  warn(object: object, message: string): void;
}

export interface QuoteServiceDeps {
  /** payment-redirect's client; keys are `<prefix>:provider-quotes:<provider>:<currency>:<band>[:<location>]` and its `:lock`. */
  redis: IORedis;
  keyPrefix: string;
  providers: Pick<ProviderRegistry, 'adapter'>;
  /** For an estimate of an order in another currency than USD (its USD value), as Process Payment values it. */
  rates: RateReader;
  settings: QuoteSettings;
  metrics?: QuoteMetrics;
  logger?: QuoteLogger;
  now?: () => number;
}

/**
 * A band's cached answer: the provider's quote for `amount` minor units (fees on top: USDC base
 * units), or its failure (the estimate stands until it expires).
 */
type CachedQuote =
  | { v: 1; at: number; amount: string; usdc: string; total: string; currency: CurrencyCode }
  | { v: 1; at: number; failed: true };

// A replica that finds the band being fetched by another looks again this often while it waits.
const LOOK_AGAIN_MS = 25;
const RELEASE_LOCK = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const noMetrics: QuoteMetrics = { call: () => undefined, cache: () => undefined, served: () => undefined };
const noLogger: QuoteLogger = { warn: () => undefined };

/**
 * Providers' quotes for the checkout page's rows and Process Payment, one call per provider,
 * currency and amount band (packages/domain quote-bands.ts) per cache period however many pages
 * load at once: the band's quote lives in Redis, a SET NX PX lock lets one replica ask the provider
 * while the others wait for what it stores (and one promise per band does the same within a
 * process). A quote older than the cache period is still served for half a period while one
 * request refreshes it in the background (stale-while-revalidate). A provider that fails, times
 * out or has no quote API gets the estimate from its documented fees, marked as such: a row is
 * never missing and a page never fails for a quote. When Redis fails, each process asks the
 * provider itself (its own promise per band still shares the call).
 */
export class QuoteService {
  private readonly redis: IORedis;
  private readonly keyPrefix: string;
  private readonly settings: QuoteSettings;
  private readonly metrics: QuoteMetrics;
  private readonly log: QuoteLogger;
  private readonly now: () => number;
  /** The refresh of each band this process runs or waits for. */
  private readonly inFlight = new Map<string, Promise<CachedQuote | undefined>>();

  constructor(private readonly deps: QuoteServiceDeps) {
    this.redis = deps.redis;
    this.keyPrefix = deps.keyPrefix;
    this.settings = deps.settings;
    this.metrics = deps.metrics ?? noMetrics;
    this.log = deps.logger ?? noLogger;
    this.now = deps.now ?? Date.now;
  }

  /**
   * The row's figures: the provider's quote (its band's, scaled to the amount) when it has one
   * within `waitMs`, else the estimate. Throws only when an estimate in another currency than USD
   * needs exchange rates that are not available (as Process Payment would).
   */
  async quote(order: OrderToQuote, { waitMs }: { waitMs: number }): Promise<RowQuote> {
    const adapter = this.adapterOf(order.provider);
    const quoted = await this.providerQuote(order, { waitMs });
    if (quoted) return quoted;
    const estimate = await this.estimate(order, adapter);
    this.metrics.served(order.provider, 'estimate');
    return estimate;
  }

  /**
   * The provider's quote for the order (its band's, scaled to the amount), when its adapter quotes
   * and the band's quote is cached or comes within `waitMs`; undefined otherwise. What the page
   * showed is what Process Payment records, while the band's quote lasts.
   */
  async providerQuote(order: OrderToQuote, { waitMs }: { waitMs: number }): Promise<RowQuote | undefined> {
    const adapter = this.adapterOf(order.provider);
    if (!pricingOf(adapter, order)) return undefined;
    const cached = await this.cachedFor(adapter, order, waitMs);
    if (!cached || 'failed' in cached || cached.currency !== order.currency) return undefined;
    const quoted = { usdc: BigInt(cached.usdc), total: cached.total };
    const figures = scaleQuote(quoted, BigInt(cached.amount), order.feesOnTop?.usdc ?? order.amount.minorUnits);
    this.metrics.served(order.provider, 'quote');
    return {
      provider: order.provider,
      basis: 'quote',
      ...figures,
      currency: order.currency,
      quotedAt: new Date(cached.at),
      ...(order.feesOnTop ? { feesOnTop: { orderUsdc: order.feesOnTop.orderUsdc } } : {}),
    };
  }

  /** Resolves once the refreshes still running are done (before Redis closes). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight.values());
  }

  private adapterOf(provider: string): ProviderAdapter {
    const adapter = this.deps.providers.adapter(provider);
    if (!adapter) throw new Error(`provider ${provider} is offered without an adapter`);
    return adapter;
  }

  /**
   * The order's USD value less the middle of the documented fee range (expectUsdc, as Process Payment
   * estimates); the customer pays the order amount. Fees on top: the fixed USDC, and what the
   * customer pays for it from the same fees (feesOnTopEstimate).
   */
  private async estimate(order: OrderToQuote, adapter: ProviderAdapter): Promise<RowQuote> {
    const { feesOnTop } = order;
    if (feesOnTop) {
      const total = feesOnTopEstimate({ amountMinorUnits: order.amount.minorUnits, ...feesOnTop, fees: adapter.descriptor.fees });
      return {
        provider: order.provider,
        basis: 'estimate',
        usdc: feesOnTop.usdc,
        total: formatMinorUnits(total),
        currency: order.currency,
        feesOnTop: { orderUsdc: feesOnTop.orderUsdc },
      };
    }
    let usdCents = order.amount.minorUnits;
    if (order.currency !== 'USD') {
      const rate = (await this.deps.rates.current()).rates.get(order.currency);
      if (!rate) throw new Error(`no exchange rate for ${order.currency}`);
      usdCents = convertToUsdMinorUnits(order.amount.minorUnits, rate);
    }
    const { usdc } = expectUsdc({ usdCents, fees: adapter.descriptor.fees });
    return { provider: order.provider, basis: 'estimate', usdc, total: order.amount.text, currency: order.currency };
  }

  /** The band's cached answer while it may be served; a refresh when it is due; undefined past `waitMs`. */
  private async cachedFor(adapter: ProviderAdapter, order: OrderToQuote, waitMs: number): Promise<CachedQuote | undefined> {
    const key = this.keyOf(adapter, order);
    const provider = order.provider;
    let cached: CachedQuote | undefined;
    let redisUp = true;
    try {
      cached = await this.read(key);
    } catch (error) {
      redisUp = false;
      this.log.warn({ err: error, provider }, 'quote cache unreadable (Redis): asking the provider without it');
    }
    const age = cached ? this.now() - cached.at : Number.POSITIVE_INFINITY;
    if (cached && age < this.settings.cacheMs) {
      this.metrics.cache(provider, 'hit');
      return cached;
    }
    if (cached && !('failed' in cached) && age < this.servedForMs()) {
      this.metrics.cache(provider, 'stale');
      void this.refresh(key, adapter, order, redisUp, 0);
      return cached;
    }
    this.metrics.cache(provider, 'miss');
    return this.within(this.refresh(key, adapter, order, redisUp, waitMs), waitMs);
  }

  /**
   * One refresh of the band per process at a time: the replica holding the band's lock asks the
   * provider and stores its answer; the others look for it until `waitMs` (a background refresh: not at all).
   */
  private refresh(
    key: string,
    adapter: ProviderAdapter,
    order: OrderToQuote,
    redisUp: boolean,
    waitMs: number,
  ): Promise<CachedQuote | undefined> {
    let running = this.inFlight.get(key);
    if (!running) {
      running = this.refreshOnce(key, adapter, order, redisUp, waitMs)
        .catch((error: unknown) => {
          this.log.warn({ err: error, provider: order.provider }, 'quote refresh failed');
          return undefined;
        })
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, running);
    }
    return running;
  }

  private async refreshOnce(
    key: string,
    adapter: ProviderAdapter,
    order: OrderToQuote,
    redisUp: boolean,
    waitMs: number,
  ): Promise<CachedQuote | undefined> {
    const lockKey = `${key}:lock`;
    const token = randomBytes(12).toString('hex');
    let locked = false;
    if (redisUp) {
      try {
        // Held for a call's longest time: a replica that dies holding it delays the band by no more.
        locked = (await this.redis.set(lockKey, token, 'PX', this.settings.callTimeoutMs + 1_000, 'NX')) === 'OK';
      } catch (error) {
        redisUp = false;
        this.log.warn({ err: error, provider: order.provider }, 'quote lock unavailable (Redis): asking the provider without it');
      }
      if (redisUp && !locked) return this.lookAgain(key, waitMs);
    }
    try {
      // The replica that held the lock before may have stored the band's quote since it was read.
      const stored = locked ? await this.read(key).catch(() => undefined) : undefined;
      if (stored && this.now() - stored.at < this.settings.cacheMs) return stored;
      const answer = await this.ask(adapter, order);
      if (redisUp) {
        // Kept for the period and the half period it may be served stale; a failure for the period only.
        const keepMs = 'failed' in answer ? this.settings.cacheMs : this.servedForMs();
        await this.redis
          .set(key, JSON.stringify(answer), 'PX', keepMs)
          .catch((error: unknown) => this.log.warn({ err: error, provider: order.provider }, 'quote could not be stored in Redis'));
      }
      return answer;
    } finally {
      if (locked) await this.redis.eval(RELEASE_LOCK, 1, lockKey, token).catch(() => undefined);
    }
  }

  /** The provider's quote for the order's amount, or its failure, counted by outcome. */
  private async ask(adapter: ProviderAdapter, order: OrderToQuote): Promise<CachedQuote> {
    const provider = order.provider;
    const at = this.now();
    try {
      const signal = AbortSignal.timeout(this.settings.callTimeoutMs);
      const asked = { amount: order.amount.text, currency: order.currency };
      const pricing = pricingOf(adapter, order);
      const quote =
        pricing === 'usdc'
          ? await adapter.quoteUsdc!({ usdc: order.feesOnTop!.usdc, currency: order.currency }, { signal })
          : pricing === 'located'
            ? await adapter.locatedQuote!.quote({ ...asked, location: order.location! }, { signal })
            : await adapter.quote!(asked, { signal });
      if (quote.currency !== order.currency)
        throw new ProviderCheckoutError(`quoted in ${quote.currency}, asked for ${order.currency}`, 'refused');
      this.metrics.call(provider, 'ok');
      return {
        v: 1,
        at,
        amount: (order.feesOnTop?.usdc ?? order.amount.minorUnits).toString(),
        usdc: quote.usdc.toString(),
        total: quote.total,
        currency: order.currency,
      };
    } catch (error) {
      const outcome = outcomeOf(error);
      this.metrics.call(provider, outcome);
      this.log.warn({ err: error, provider, outcome }, 'provider quote failed: its row shows the estimate for the cache period');
      return { v: 1, at, failed: true };
    }
  }

  /** Another replica holds the band's lock: what it stores, looked for until `waitMs` passes. */
  private async lookAgain(key: string, waitMs: number): Promise<CachedQuote | undefined> {
    const until = this.now() + waitMs;
    while (this.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, LOOK_AGAIN_MS));
      const cached = await this.read(key);
      if (cached && this.now() - cached.at < this.settings.cacheMs) return cached;
    }
    return undefined;
  }

  private async within<T>(work: Promise<T | undefined>, waitMs: number): Promise<T | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), waitMs);
    });
    try {
      return await Promise.race([work, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async read(key: string): Promise<CachedQuote | undefined> {
    const text = await this.redis.get(key);
    if (text === null) return undefined;
    const cached = parseCached(text);
    if (!cached) this.log.warn({ key }, 'cached quote is unreadable; asking the provider again');
    return cached;
  }

  private servedForMs(): number {
    return Math.floor(this.settings.cacheMs * 1.5);
  }

  /**
   * Fees on top are quoted in bands of the USDC bought (by its cents), apart from the bands of fiat
   * amounts; a located quote's band is the location's too (`:GB`, `:US-TX`).
   */
  private keyOf(adapter: ProviderAdapter, order: OrderToQuote): string {
    const band = order.feesOnTop
      ? `usdc:${quoteBandOf(order.feesOnTop.usdc / 10_000n > 0n ? order.feesOnTop.usdc / 10_000n : 1n).index}`
      : quoteBandOf(order.amount.minorUnits).index;
    const { location } = order;
    const where =
      location && pricingOf(adapter, order) === 'located'
        ? `:${location.country}${location.subdivision ? `-${location.subdivision}` : ''}`
        : '';
    return `${this.keyPrefix}:provider-quotes:${order.provider}:${order.currency}:${band}${where}`;
  }
}

/** How `adapter` prices `order`; undefined: it cannot, and the row is an estimate. */
function pricingOf(adapter: ProviderAdapter, order: OrderToQuote): Pricing | undefined {
  if (order.feesOnTop) return adapter.quoteUsdc ? 'usdc' : undefined;
  if (adapter.quote) return 'amount';
  return order.location && adapter.locatedQuote?.prices(order.location) ? 'located' : undefined;
}

function outcomeOf(error: unknown): QuoteCallOutcome {
  if (error instanceof ProviderCheckoutError) {
    if (error.failure === 'timeout') return 'timeout';
    return error.kind === 'refused' ? 'refused' : 'unavailable';
  }
  if (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'timeout';
  return 'unavailable';
}

const DIGITS = /^\d{1,30}$/;

function parseCached(text: string): CachedQuote | undefined {
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    if (value.v !== 1 || typeof value.at !== 'number' || !Number.isFinite(value.at)) return undefined;
    if (value.failed === true) return { v: 1, at: value.at, failed: true };
    const { amount, usdc, total, currency } = value;
    if (typeof amount !== 'string' || !DIGITS.test(amount) || amount === '0') return undefined;
    if (typeof usdc !== 'string' || !DIGITS.test(usdc)) return undefined;
    if (typeof total !== 'string' || !/^\d{1,40}\.\d{2,104}$/.test(total) || typeof currency !== 'string') return undefined;
    return { v: 1, at: value.at, amount, usdc, total, currency: currency as CurrencyCode };
  } catch {
    return undefined;
  }
}
