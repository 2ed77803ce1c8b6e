import type IORedis from 'ioredis';
import { GatewayError, type CurrencyCode, type ExactRate, type RateTable } from '@gateway/domain';
import { CachedRateReader, type RateLogger } from './cached-rate-reader';
import type { RateReader } from './rate-reader';
import type { RateSource } from './rate-source';
import { ecbSource } from './sources/ecb';
import { fileSource } from './sources/file';
import { openErApiSource } from './sources/open-er-api';

/** The resolved rate settings (RateSourceConfig of @gateway/config has this shape). */
export interface RateReaderSettings {
  kind: 'ecb' | 'open-er-api' | 'file';
  url?: string;
  file?: string;
  refreshMs: number;
  maxAgeMs: number;
  fetchTimeoutMs: number;
}

export function createRateSource(settings: RateReaderSettings): RateSource {
  switch (settings.kind) {
    case 'ecb':
      return ecbSource({ url: settings.url, timeoutMs: settings.fetchTimeoutMs });
    case 'open-er-api':
      return openErApiSource({ url: settings.url, timeoutMs: settings.fetchTimeoutMs });
    case 'file':
      return fileSource({ path: settings.file });
  }
}

export interface CreateRateReaderDeps {
  settings: RateReaderSettings;
  redis: IORedis;
  keyPrefix: string;
  logger?: RateLogger;
}

/** The API apps' reader: the configured source behind the Redis cache. Call start() before serving and stop() on close. */
export function createRateReader({ settings, redis, keyPrefix, logger }: CreateRateReaderDeps): CachedRateReader {
  return new CachedRateReader({
    source: createRateSource(settings),
    redis,
    keyPrefix,
    refreshMs: settings.refreshMs,
    maxAgeMs: settings.maxAgeMs,
    logger,
  });
}

/**
 * The current rate table, or, while the rates cannot be used, a table whose every lookup throws
 * that 503. Code that needs no rate (a USD order) goes through; code that needs one gets the
 * clear "rates unavailable" answer rather than "unsupported currency".
 */
export async function currentRatesOrDeferredError(reader: RateReader): Promise<RateTable> {
  try {
    return (await reader.current()).rates;
  } catch (error) {
    if (!(error instanceof GatewayError) || error.code !== 'service_unavailable') throw error;
    return new UnavailableRateTable(error);
  }
}

class UnavailableRateTable extends Map<CurrencyCode, ExactRate> {
  constructor(private readonly error: GatewayError) {
    super();
  }

  override get(): never {
    throw this.error;
  }

  override has(): never {
    throw this.error;
  }
}
