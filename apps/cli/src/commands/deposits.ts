import { Type } from '@sinclair/typebox';
import { chainIdentitySettings, databasePoolOptions, loadConfig } from '@gateway/config';
import { createPool, SettlementRepository, type DepositNeedingAttention } from '@gateway/db/cli';
import { formatUsdc, isDepositId } from '@gateway/domain';
import { loadSettlementConfig, replanDeposit } from '@gateway/settlement-worker/operator';
import { CommandFailed, parseCommandArgs, toJson, UsageError, type CliIo } from '../command-kit';
import { databaseCommandSettings, withDatabase } from '../database';

const DEFAULT_TIMEOUT_SECONDS = 600;
const listSettings = Type.Object({ ...databaseCommandSettings.properties, ...chainIdentitySettings });

/**
 * `gateway deposits replan --list`: the deposits waiting for a person (needs_attention, or forwarded
 * with a fee or affiliate leg that needs attention), each with its reason and its legs; DATABASE_URL only.
 * `gateway deposits replan <id>`: once the cause is fixed, cancels the old authorizations not used,
 * on chain, waits until the cancellations are final, writes a new plan with fresh nonces from the
 * wallet's terms and PLATFORM_FEE_ADDRESS now, and queues the deposit; run it again to resume after a timeout.
 */
export async function replanCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { list: { type: 'boolean' }, timeout: { type: 'string' } });
  const json = values.json === true;
  if (values.list) {
    if (positionals.length > 0 || values.timeout !== undefined) throw new UsageError('--list takes no deposit id or --timeout');
    return list(io, json);
  }
  if (positionals.length !== 1) throw new UsageError('name one deposit id, or --list');
  const depositId = positionals[0]!;
  if (!isDepositId(depositId)) throw new UsageError(`${depositId} is not a deposit id`);
  const timeoutSeconds = values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(values.timeout);
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1) throw new UsageError('--timeout is a whole number of seconds, at least 1');

  const config = loadSettlementConfig(io.env);
  const pool = createPool({ ...databasePoolOptions(config.raw, 'gateway-cli-replan'), max: 3, app: 'settlement-worker' });
  const outcome = await withDatabase(pool, (open) =>
    // Progress lines as they happen; with --json they would break the one document, so they go to stderr.
    replanDeposit(config, open, depositId, { timeoutMs: timeoutSeconds * 1000, report: (line) => (json ? io.err(line) : io.out(line)) }),
  );
  switch (outcome.result) {
    case 'not_found':
      throw new CommandFailed(`no deposit ${depositId}`);
    case 'busy':
      throw new CommandFailed(`deposit ${depositId} is being settled by a worker right now; try again in a moment`);
    case 'nothing_to_replan':
      throw new CommandFailed(`deposit ${depositId} is ${outcome.status} and none of its legs needs attention: nothing to re-plan`);
    case 'timed_out':
      throw new CommandFailed(
        `the cancellations of the ${outcome.pending.join(', ')} leg(s) are not final yet; run gateway deposits replan ${depositId} again`,
        3,
      );
  }
  if (!('queuedBy' in outcome)) throw new Error('a re-planned deposit without its job');
  if (json) {
    io.out(toJson({ depositId, result: 'replanned', paid: outcome.paid, newLegs: outcome.replaced.length, queuedBy: outcome.queuedBy }));
    return 0;
  }
  const paid = outcome.paid.length > 0 ? `; paid after all: ${outcome.paid.join(', ')}` : '';
  const queued =
    outcome.queuedBy === 'queued' ? 'queued' : `Redis did not take the job (${outcome.queueError}), the worker's reconciler will queue it`;
  io.out(`deposit ${depositId} re-planned (${outcome.replaced.length} new leg(s)${paid}) and ${queued}`);
  return 0;
}

async function list(io: CliIo, json: boolean): Promise<number> {
  const raw = loadConfig(listSettings, io.env);
  const pool = createPool({ ...databasePoolOptions(raw, 'gateway-cli-replan-list'), max: 1, app: 'settlement-worker' });
  const deposits = await withDatabase(pool, (open) => new SettlementRepository(open).listNeedingAttention(raw.CHAIN_ID));
  if (json) io.out(toJson(deposits));
  else if (deposits.length === 0) io.out('no deposit needs attention');
  else for (const deposit of deposits) io.out(describe(deposit));
  return 0;
}

function describe(deposit: DepositNeedingAttention): string {
  const head = [
    `deposit ${deposit.depositId}`,
    deposit.status,
    deposit.reason ?? 'leg needs attention',
    `${formatUsdc(deposit.amount)} USDC`,
    `since ${deposit.since?.toISOString() ?? '?'}`,
    `wallet ${deposit.temporaryAddress}`,
    `payout ${deposit.payoutAddress}`,
    `txid_in ${deposit.txHash}`,
  ].join('  ');
  const legs = deposit.legs.map((leg) =>
    [
      `  ${leg.leg.padEnd(9)}`,
      leg.status.padEnd(15),
      `${formatUsdc(leg.amount)} USDC to ${leg.toAddress}`,
      leg.reason ? `${leg.reason} (${leg.detail ?? ''})` : '',
    ]
      .join('  ')
      .trimEnd(),
  );
  return [head, ...legs].join('\n');
}
