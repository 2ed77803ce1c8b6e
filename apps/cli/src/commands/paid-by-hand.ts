import { Type } from '@sinclair/typebox';
import type { Hash } from 'viem';
import { chainIdentitySettings, databasePoolOptions, loadConfig } from '@gateway/config';
import { createPool } from '@gateway/db/cli';
import { formatUsdc, isDepositId, isTxHash } from '@gateway/domain';
import { listHeldForOperator, loadSettlementConfig, recordHandPayout, type HeldDeposit } from '@gateway/settlement-worker/operator';
import { CommandFailed, parseCommandArgs, toJson, UsageError, type CliIo } from '../command-kit';
import { databaseCommandSettings, withDatabase } from '../database';

const listSettings = Type.Object({ ...databaseCommandSettings.properties, ...chainIdentitySettings });

/**
 * `gateway deposits paid-by-hand --list`: the deposits held for the operator (the other USDC), each with
 * what a payout by hand of it may move; DATABASE_URL only.
 * `gateway deposits paid-by-hand <deposit id> --tx <hash>`: records the payout the operator made by hand
 * from the deposit's temporary wallet, once the chain shows it (the settlement worker's environment:
 * its database role, CHAIN_RPC_URL, and SETTLEMENT_MNEMONIC to prove the wallet is this gateway's).
 */
export async function paidByHandCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { list: { type: 'boolean' }, tx: { type: 'string' } });
  const json = values.json === true;
  if (values.list) {
    if (positionals.length > 0 || values.tx !== undefined) throw new UsageError('--list takes no deposit id or --tx');
    return list(io, json);
  }
  if (positionals.length !== 1) throw new UsageError('name one deposit id (and --tx), or --list');
  const depositId = positionals[0]!;
  if (!isDepositId(depositId)) throw new UsageError(`${depositId} is not a deposit id`);
  if (values.tx === undefined) throw new UsageError('--tx <transaction hash> names the transaction that paid it');
  const txHash = values.tx.toLowerCase();
  if (!isTxHash(txHash)) throw new UsageError(`--tx ${values.tx} is not a transaction hash (0x and 64 hex digits)`);

  const config = loadSettlementConfig(io.env);
  const pool = createPool({ ...databasePoolOptions(config.raw, 'gateway-cli-paid-by-hand'), max: 2, app: 'settlement-worker' });
  const outcome = await withDatabase(pool, (open) => recordHandPayout(config, open, depositId, txHash as Hash));
  switch (outcome.result) {
    case 'not_found':
      throw new CommandFailed(`no deposit ${depositId}`);
    case 'not_held':
      throw new CommandFailed(`deposit ${depositId} is ${outcome.status}, not held_for_operator: nothing to record`);
    case 'not_mined':
      throw new CommandFailed(`the node knows no mined transaction ${txHash}; check the hash, or run this again once it is mined`);
    case 'reverted':
      throw new CommandFailed(`transaction ${txHash} reverted (block ${outcome.blockNumber}): it paid nothing`);
    case 'not_final':
      throw new CommandFailed(`transaction ${txHash} (block ${outcome.blockNumber}) is not final yet; run this again later`);
    case 'refused':
      throw new CommandFailed(`transaction ${txHash} does not pay deposit ${depositId} out: ${outcome.reason}`);
    case 'transfer_taken':
      throw new CommandFailed(`transaction ${txHash}'s transfer is already recorded for deposit ${outcome.depositId}`);
  }
  const { payout } = outcome;
  if (json) {
    io.out(toJson({ depositId, result: 'recorded', status: 'paid_by_operator', ...payout }));
    return 0;
  }
  const share = payout.paid === 'merchant_share' ? "the merchant's share" : 'the whole deposit';
  io.out(
    `deposit ${depositId} paid_by_operator: ${formatUsdc(payout.amount)} (${share}) to ${payout.toAddress} in ${payout.txHash} ` +
      `(log ${payout.logIndex}, block ${payout.blockNumber})`,
  );
  return 0;
}

async function list(io: CliIo, json: boolean): Promise<number> {
  const raw = loadConfig(listSettings, io.env);
  const pool = createPool({ ...databasePoolOptions(raw, 'gateway-cli-paid-by-hand-list'), max: 1, app: 'settlement-worker' });
  const held = await withDatabase(pool, (open) => listHeldForOperator(open, raw.CHAIN_ID));
  if (json) io.out(toJson(held));
  else if (held.length === 0) io.out('no deposit is held for the operator');
  else for (const deposit of held) io.out(describe(deposit));
  return 0;
}

function describe(deposit: HeldDeposit): string {
  return [
    `deposit ${deposit.depositId}`,
    `${formatUsdc(deposit.amount)} of token ${deposit.token ?? '?'}`,
    `since ${deposit.heldAt?.toISOString() ?? '?'}`,
    `wallet ${deposit.temporaryAddress} (hd_index ${deposit.hdIndex})`,
    `payout ${deposit.payoutAddress}`,
    `merchant's share ${formatUsdc(deposit.merchantShare)}`,
    `txid_in ${deposit.txHash}`,
  ].join('  ');
}
