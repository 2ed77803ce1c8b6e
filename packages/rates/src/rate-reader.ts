import type { RateTable } from '@gateway/domain';

/** Exchange rates as one source published them: units of each currency per 1 USD. */
export interface RateSnapshot {
  rates: RateTable;
  /** When the source says the rates are from (the ECB's reference date, an API's timestamp). */
  asOf: Date;
  /** Which source they came from, e.g. `ecb`, `file`. */
  source: string;
}

/**
 * What the API apps read rates through (Convert to USD, provider minimums, the hosted checkout).
 * `current()` throws a GatewayError `service_unavailable` when the rates are too old to use.
 */
export interface RateReader {
  current(): Promise<RateSnapshot>;
}
