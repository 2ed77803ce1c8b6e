import { Gauge, type Registry } from 'prom-client';
import type { CachedRateReader } from './cached-rate-reader';

/**
 * The age of the rates in use, read at scrape time. Alert well before it reaches
 * RATE_MAX_AGE_SECONDS: past it, non-USD conversions and orders answer 503.
 */
export function registerRateMetrics(reader: CachedRateReader, registry: Registry): void {
  new Gauge({
    name: 'exchange_rates_age_seconds',
    help: "Age of the exchange rates in use, from the source's own date (absent until rates were loaded)",
    labelNames: ['source'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const status = reader.status();
      if (status) this.set({ source: status.source }, status.ageMs / 1000);
    },
  });
  new Gauge({
    name: 'exchange_rates_usable',
    help: '1 while the rates are young enough to use, 0 when conversions answer 503',
    registers: [registry],
    collect() {
      this.set(reader.status()?.usable ? 1 : 0);
    },
  });
}
