import { GatewayError, invalidParameter } from './errors';
import { parseHexAddress } from './evm-address';

/**
 * What a merchant's ledger is asked for (`gateway ledger export`, wallet-control's GET /admin/ledger):
 * the orders (wallets) of one payout address created in a time range, in a format. Both read their
 * parameters through this one rule, so they refuse the same input with the same words.
 */

export type LedgerFormat = 'csv' | 'json';
export const LEDGER_FORMATS: readonly LedgerFormat[] = ['csv', 'json'];

/**
 * The longest range one export covers: a year (a leap year's 366 days), what an accountant closes
 * at once. The export streams in constant memory whatever the range; the bound keeps one request
 * from holding a read transaction open over the gateway's whole history.
 */
export const LEDGER_MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;

export interface LedgerQuery {
  /** Lower-case hex, as wallets record it. */
  payoutAddress: string;
  /** Orders whose wallet was created at or after this time… */
  from: Date;
  /** …and before this one. */
  to: Date;
  format: LedgerFormat;
}

/** The query's parameters as given, by their HTTP names (the CLI's --payout-address, --from, --to, --format). */
export interface LedgerQueryInput {
  payout_address?: string;
  from?: string;
  to?: string;
  format?: string;
}

// A calendar day (midnight UTC), or a moment with its offset: a time without one would be read in
// whatever zone the gateway runs in, and an accountant's month would shift with it.
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const MOMENT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Reads a ledger query: payout_address an EVM address (lower-case, upper-case or rightly
 * checksummed), from and to each a day (YYYY-MM-DD, midnight UTC) or an ISO 8601 time with its
 * offset, from before to and at most LEDGER_MAX_RANGE_DAYS apart, format csv (the default) or json.
 * Anything else is refused with invalid_parameter (or missing_parameter) naming the parameter.
 */
export function parseLedgerQuery(input: LedgerQueryInput): LedgerQuery {
  const payoutAddress = parseHexAddress(required(input.payout_address, 'payout_address'), 'payout_address').toLowerCase();
  const from = parseLedgerTime(required(input.from, 'from'), 'from');
  const to = parseLedgerTime(required(input.to, 'to'), 'to');
  if (from.getTime() >= to.getTime()) {
    throw invalidParameter(
      'to',
      `to must be after from: the ledger covers orders created from "from" (included) up to "to" (excluded), e.g. from=2026-11-01&to=2026-12-01`,
    );
  }
  if (to.getTime() - from.getTime() > LEDGER_MAX_RANGE_DAYS * DAY_MS) {
    throw invalidParameter(
      'to',
      `the range from ${input.from} to ${input.to} is longer than ${LEDGER_MAX_RANGE_DAYS} days; export a year at a time`,
    );
  }
  const format = input.format ?? 'csv';
  if (!(LEDGER_FORMATS as readonly string[]).includes(format)) {
    throw invalidParameter('format', `format must be csv or json (JSON Lines), got "${format.slice(0, 20)}"`);
  }
  return { payoutAddress, from, to, format: format as LedgerFormat };
}

/** No wallet pays this address: a mistyped address, or another gateway's merchant. The endpoint's 404, the CLI's failure. */
export function unknownLedgerPayoutAddress(payoutAddress: string): GatewayError {
  return new GatewayError(
    'not_found',
    `no order of this gateway pays ${payoutAddress}: check payout_address, the address the merchant gave Create Wallet`,
    'payout_address',
  );
}

/** A range bound: a day at midnight UTC, or an ISO 8601 time with its offset (Z or ±hh:mm). */
export function parseLedgerTime(input: string, param: string): Date {
  const day = DAY.exec(input);
  const moment = day ? undefined : MOMENT.exec(input);
  const parts = day ?? moment;
  const refuse = () =>
    invalidParameter(
      param,
      `${param} must be a day (YYYY-MM-DD, from midnight UTC) or an ISO 8601 time with its offset (2026-11-01T00:00:00Z, ` +
        `2026-11-01T00:00:00+01:00); got "${input.slice(0, 40)}"`,
    );
  if (!parts) throw refuse();
  const [, year, month, date, hours = '00', minutes = '00', seconds = '00'] = parts;
  const at = new Date(day ? `${input}T00:00:00Z` : input);
  // Date.parse rolls 2026-02-30 over to March 2nd; a day or a time that does not exist is refused.
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(date), Number(hours), Number(minutes), Number(seconds)));
  const exists =
    calendar.getUTCFullYear() === Number(year) &&
    calendar.getUTCMonth() === Number(month) - 1 &&
    calendar.getUTCDate() === Number(date) &&
    calendar.getUTCHours() === Number(hours) &&
    calendar.getUTCMinutes() === Number(minutes) &&
    calendar.getUTCSeconds() === Number(seconds);
  if (!exists || Number.isNaN(at.getTime())) throw refuse();
  return at;
}

const EXAMPLES: Record<string, string> = {
  payout_address: "the merchant's payout address, 0x followed by 40 hexadecimal characters",
  from: 'the first day of the range, e.g. 2026-11-01',
  to: 'the day after the range, e.g. 2026-12-01',
};

function required(value: string | undefined, param: string): string {
  if (value === undefined || value === '') {
    throw new GatewayError('missing_parameter', `${param} is required: ${EXAMPLES[param] ?? ''}`, param);
  }
  return value;
}
