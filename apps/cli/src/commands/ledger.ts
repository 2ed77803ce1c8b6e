import { rename, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { ledgerExport, LedgerRepository } from '@gateway/db/cli';
import { GatewayError, parseLedgerQuery, unknownLedgerPayoutAddress, type LedgerQuery } from '@gateway/domain';
import { CommandFailed, parseCommandArgs, UsageError, type CliIo } from '../command-kit';
import { openDatabase, withDatabase } from '../database';

/**
 * `gateway ledger export --payout-address 0x… --from 2026-11-01 --to 2026-12-01 [--format csv|json] [--out file]`:
 * a merchant's ledger (docs/ledger.md), streamed from PostgreSQL to stdout or to a file, by the code
 * path of wallet-control's GET /admin/ledger, with the same refusals. The owner's login (DATABASE_URL).
 * A file is written beside its name and renamed once whole: a failed export leaves no partial ledger.
 */
export async function ledgerExportCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    'payout-address': { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string' },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}: give the ledger's options only`);
  if (values.json && values.format !== undefined && values.format !== 'json') throw new UsageError('--json is --format json');
  const query = ledgerQuery({
    payout_address: values['payout-address'],
    from: values.from,
    to: values.to,
    format: values.json ? 'json' : values.format,
  });
  const progress = { orders: 0 };
  await withDatabase(openDatabase(io.env, 'ledger'), async (pool) => {
    const ledger = new LedgerRepository(pool);
    if (!(await ledger.knowsPayoutAddress(query.payoutAddress)))
      throw new CommandFailed(unknownLedgerPayoutAddress(query.payoutAddress).message);
    const stream = ledgerExport(ledger, query, progress);
    if (values.out === undefined) {
      await pipeline(stream, io.stdout, { end: false });
      return;
    }
    const partial = `${values.out}.partial-${process.pid}`;
    try {
      await pipeline(stream, createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
      await rename(partial, values.out);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  });
  if (values.out !== undefined) io.err(`wrote ${progress.orders} order(s) to ${values.out}`);
  return 0;
}

/** The same refusals as GET /admin/ledger, as usage errors (exit 2), worded alike. */
function ledgerQuery(input: Parameters<typeof parseLedgerQuery>[0]): LedgerQuery {
  try {
    return parseLedgerQuery(input);
  } catch (error) {
    if (error instanceof GatewayError) throw new UsageError(error.message);
    throw error;
  }
}
