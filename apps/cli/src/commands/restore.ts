import { Type } from '@sinclair/typebox';
import { createPublicClient, getAbiItem, http, type Address, type Hex, type Log } from 'viem';
import { chainIdentitySettings, chainRpcSettings, hdPublicKeySettings, loadConfig } from '@gateway/config';
import {
  knownAuthorizations,
  knownDeposits,
  knownTemporaryWallets,
  restoredDatabaseFacts,
  undeliveredCallbacks,
  unpaidLegs,
} from '@gateway/db/cli';
import { DEFAULT_MAX_BLOCK_RANGE, LogRangeWidth, TemporaryAddressDeriver, usdcAbi } from '@gateway/chain';
import { parseCommandArgs, toJson, UsageError, type CliIo } from '../command-kit';
import { databaseCommandSettings, openDatabase, withDatabase } from '../database';

/** Exit code when the check found something (0: nothing; 1: the check could not run; 2: usage). */
export const RESTORE_FINDINGS_EXIT_CODE = 4;
/** HD indexes above the database's highest looked at for wallets created after the backup, unless --hd-gap says otherwise. */
const DEFAULT_HD_GAP = 10_000;

const restoreCheckSettings = Type.Object({
  ...databaseCommandSettings.properties,
  ...chainIdentitySettings,
  CHAIN_RPC_URL: chainRpcSettings.CHAIN_RPC_URL,
  HD_XPUB: Type.Optional(hdPublicKeySettings.HD_XPUB),
  MAX_BLOCK_RANGE: Type.Integer({
    default: DEFAULT_MAX_BLOCK_RANGE,
    minimum: 1,
    maximum: 100_000,
    description: 'most blocks per eth_getLogs call; halved while the node refuses',
  }),
});

type FindingKind =
  | 'leg_paid_on_chain'
  | 'payout_unknown'
  | 'deposit_after_checkpoint'
  | 'wallet_unknown'
  | 'callback_not_delivered'
  | 'relayer_counter_behind';

/** What each finding means after a restore, and what the operator does about it. */
export const RESTORE_ADVICE: Record<FindingKind, string> = {
  leg_paid_on_chain:
    'the database holds this leg as unpaid but the chain executed its authorization: start the settlement-worker, which reads the ' +
    'AuthorizationUsed log and confirms the leg with that transaction (nothing is sent); a leg that needs attention is confirmed ' +
    'as paid after all by gateway deposits replan <deposit id>, which cancels and re-plans only the legs the chain did not pay',
  payout_unknown:
    'a temporary wallet of this database paid out under an authorization no leg here carries (planned after the backup): start the ' +
    'chain-watcher and the settlement-worker; the watcher finds the deposit again from its cursor and settlement plans it under the ' +
    'same nonce and confirms it from the chain. Still listed once they have caught up: the leg was planned by hand or before derived ' +
    'nonces; pay nothing for its deposit by hand, compare it with gateway story <address>',
  deposit_after_checkpoint:
    "USDC reached a temporary wallet after the watcher's checkpoint: start the chain-watcher, which reads from its cursor and records " +
    'it; settlement pays it, once',
  wallet_unknown:
    'a temporary wallet of this gateway (HD_XPUB) above every HD index this database knows moved USDC: a wallet created after the ' +
    'backup, lost with its merchant and callback. Move the HD index sequence past it before wallet-control starts (docs/operations.md, ' +
    "step 4), find its shop in wallet-control's logs and have it create the wallet again, and pay what it received by hand (its key " +
    "is the seed's child at this index)",
  callback_not_delivered:
    "its state is the backup's: the merchant may have had it since. The callback-worker sends it again (pending) or it stays given up " +
    '(failed, refused: gateway callbacks resend). Deliveries written again after the restore carry new delivery ids: merchants ' +
    'recognise a repeat by txid_in',
  relayer_counter_behind:
    'the chain has seen more transactions from the relayer than the database counted: nothing to do, settlement takes the larger of ' +
    "its counter and the chain's",
};

interface Finding {
  kind: FindingKind;
  [detail: string]: unknown;
}

/**
 * `gateway restore check`: a restored database read against the chain, before the workers start on
 * it (docs/operations.md, "Backups and restores"). It writes nothing. Owner's DATABASE_URL (and
 * DATABASE_SCHEMA), CHAIN_RPC_URL, CHAIN_ID, USDC_TOKEN_ADDRESS, MAX_BLOCK_RANGE.
 */
export async function restoreCheckCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { 'from-block': { type: 'string' }, 'hd-gap': { type: 'string' } });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const fromBlockArg = values['from-block'];
  if (fromBlockArg !== undefined && !/^\d+$/.test(fromBlockArg)) throw new UsageError('--from-block is a block number (0 or more)');
  const hdGapArg = values['hd-gap'];
  if (hdGapArg !== undefined && !/^[1-9]\d{0,6}$/.test(hdGapArg)) throw new UsageError('--hd-gap is a number of HD indexes, 1 to 9999999');
  const hdGap = BigInt(hdGapArg ?? DEFAULT_HD_GAP);
  const config = loadConfig(restoreCheckSettings, io.env);
  const token = config.USDC_TOKEN_ADDRESS.toLowerCase() as Address;
  const client = createPublicClient({ transport: http(config.CHAIN_RPC_URL, { retryCount: 2 }) });
  const chainId = await client.getChainId();
  if (chainId !== config.CHAIN_ID) throw new Error(`CHAIN_RPC_URL answers chain ${chainId}, CHAIN_ID says ${config.CHAIN_ID}`);

  return withDatabase(openDatabase(io.env, 'restore-check'), async (pool) => {
    const facts = await restoredDatabaseFacts(pool, chainId, token);
    const head = await client.getBlockNumber();
    const afterCursor = facts.cursorBlock === null ? 0n : facts.cursorBlock + 1n;
    // Payouts after the backup pay deposits it may already hold (open ones) or not (after the cursor).
    const fromBlock =
      fromBlockArg !== undefined
        ? BigInt(fromBlockArg)
        : facts.oldestOpenDepositBlock !== null && facts.oldestOpenDepositBlock < afterCursor
          ? facts.oldestOpenDepositBlock
          : afterCursor;
    const findings: Finding[] = [];
    const width = new LogRangeWidth(config.MAX_BLOCK_RANGE);
    const readLogs = async <T extends Log>(from: bigint, read: (from: bigint, to: bigint) => Promise<T[]>): Promise<T[]> => {
      const found: T[] = [];
      for (let start = from; start <= head; ) {
        const end = width.end(start, head);
        try {
          found.push(...(await read(start, end)));
        } catch (error) {
          // A node that answers with a refusal of the width is asked again for less; anything else stops the check.
          if (!/range|limit|too many|exceed/i.test((error as Error).message) || !width.refused()) throw error;
          continue;
        }
        width.served();
        start = end + 1n;
      }
      return found;
    };

    for (const leg of await unpaidLegs(pool, chainId)) {
      const used = await client.readContract({
        address: token,
        abi: usdcAbi,
        functionName: 'authorizationState',
        args: [leg.fromAddress as Address, leg.authorizationNonce as Hex],
      });
      if (used) findings.push({ kind: 'leg_paid_on_chain', ...leg });
    }

    const uses = await readLogs(fromBlock, (from, to) =>
      client.getLogs({ address: token, event: getAbiItem({ abi: usdcAbi, name: 'AuthorizationUsed' }), fromBlock: from, toBlock: to }),
    );
    const ours = await knownTemporaryWallets(
      pool,
      uses.map((log) => (log.args.authorizer ?? '').toLowerCase()),
    );
    const ourUses = uses
      .map((log) => ({ authorizer: (log.args.authorizer ?? '').toLowerCase(), nonce: (log.args.nonce ?? '').toLowerCase(), log }))
      .filter((use) => ours.has(use.authorizer));
    const carried = await knownAuthorizations(pool, ourUses);
    for (const use of ourUses) {
      if (carried.has(`${use.authorizer}:${use.nonce}`)) continue;
      findings.push({
        kind: 'payout_unknown',
        temporaryWallet: use.authorizer,
        authorizationNonce: use.nonce,
        txHash: use.log.transactionHash,
        blockNumber: use.log.blockNumber,
      });
    }

    const transfers = await readLogs(afterCursor, (from, to) =>
      client.getLogs({ address: token, event: getAbiItem({ abi: usdcAbi, name: 'Transfer' }), fromBlock: from, toBlock: to }),
    );
    const intoOurs = await knownTemporaryWallets(
      pool,
      transfers.map((log) => (log.args.to ?? '').toLowerCase()),
    );
    const incoming = transfers.filter((log) => intoOurs.has((log.args.to ?? '').toLowerCase()));
    const recorded = await knownDeposits(
      pool,
      chainId,
      incoming.map((log) => ({ txHash: log.transactionHash.toLowerCase(), logIndex: log.logIndex })),
    );
    for (const log of incoming) {
      if (recorded.has(`${log.transactionHash.toLowerCase()}:${log.logIndex}`)) continue;
      findings.push({
        kind: 'deposit_after_checkpoint',
        temporaryWallet: (log.args.to ?? '').toLowerCase(),
        amount: log.args.value ?? 0n,
        txHash: log.transactionHash,
        logIndex: log.logIndex,
        blockNumber: log.blockNumber,
      });
    }

    if (config.HD_XPUB !== undefined) {
      // Wallets created after the backup have HD indexes above every one here: derive the next ones and
      // look for them in what the chain did since.
      const deriver = new TemporaryAddressDeriver(config.HD_XPUB);
      const first = facts.highestHdIndex === null ? 0n : facts.highestHdIndex + 1n;
      const lost = new Map<string, bigint>();
      for (let index = first; index < first + hdGap; index += 1n) lost.set(deriver.addressAt(index).toLowerCase(), index);
      const moves = [
        ...transfers.map((log) => ({ address: (log.args.to ?? '').toLowerCase(), log })),
        ...uses.map((log) => ({ address: (log.args.authorizer ?? '').toLowerCase(), log })),
      ];
      for (const { address, log } of moves) {
        const hdIndex = lost.get(address);
        if (hdIndex === undefined) continue;
        findings.push({
          kind: 'wallet_unknown',
          temporaryWallet: address,
          hdIndex,
          txHash: log.transactionHash,
          blockNumber: log.blockNumber,
        });
      }
    }

    for (const delivery of await undeliveredCallbacks(pool)) findings.push({ kind: 'callback_not_delivered', ...delivery });

    for (const counter of facts.relayerCounters) {
      const sent = BigInt(await client.getTransactionCount({ address: counter.relayerAddress as Address, blockTag: 'pending' }));
      if (sent > counter.nextNonce) findings.push({ kind: 'relayer_counter_behind', ...counter, chainNonce: sent });
    }

    const report = {
      chainId,
      token,
      chainHead: head,
      watcherCheckpoint: facts.cursorBlock,
      searchedFromBlock: fromBlock,
      newestRecordAt: facts.newestRecordAt,
      /** Null without HD_XPUB: wallets created after the backup were not looked for. */
      hdIndexesSearched: config.HD_XPUB === undefined ? null : { above: facts.highestHdIndex, count: hdGap },
      findings,
      advice: Object.fromEntries([...new Set(findings.map((finding) => finding.kind))].map((kind) => [kind, RESTORE_ADVICE[kind]])),
    };
    if (values.json) io.out(toJson(report));
    else printReport(io, report);
    return findings.length === 0 ? 0 : RESTORE_FINDINGS_EXIT_CODE;
  });
}

function printReport(
  io: CliIo,
  report: {
    chainHead: bigint;
    watcherCheckpoint: bigint | null;
    searchedFromBlock: bigint;
    newestRecordAt: Date | null;
    findings: Finding[];
  },
): void {
  io.out(
    `chain head ${report.chainHead}; watcher checkpoint ${report.watcherCheckpoint ?? 'none'}; payouts searched from block ` +
      `${report.searchedFromBlock}; newest record ${report.newestRecordAt?.toISOString() ?? 'none'}`,
  );
  if (report.findings.length === 0) {
    io.out('nothing found: the database and the chain agree');
    return;
  }
  for (const kind of Object.keys(RESTORE_ADVICE) as FindingKind[]) {
    const ofKind = report.findings.filter((finding) => finding.kind === kind);
    if (ofKind.length === 0) continue;
    io.out('');
    io.out(`${kind} (${ofKind.length}): ${RESTORE_ADVICE[kind]}`);
    for (const { kind: _kind, ...detail } of ofKind) {
      io.out(
        `  ${Object.entries(detail)
          .map(([key, value]) => `${key}=${value instanceof Date ? value.toISOString() : String(value)}`)
          .join(' ')}`,
      );
    }
  }
}
