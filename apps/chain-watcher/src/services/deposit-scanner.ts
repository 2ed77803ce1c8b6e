import type { Pool } from 'pg';
import type { Address } from 'viem';
import type {
  ChainCursor,
  ChainCursorKey,
  ChainCursorRepository,
  DepositRepository,
  GatewaySender,
  NewDeposit,
} from '@gateway/db/chain-watcher';
import type { WatcherMetrics } from '../metrics';
import { RpcCallError, type ChainReader, type TransferLog } from './chain-reader';
import { inTransaction } from '@gateway/db/chain-watcher';
import { LogRangeWidth } from '@gateway/chain';

export interface ScanResult {
  /** Where the cursor stands now (the last block of the range). */
  cursor: ChainCursor;
  fromBlock: bigint;
  toBlock: bigint;
  /** Transfer logs of the tokens in the range. */
  transfers: number;
  /** Those into temporary wallets from customers (the deposits). */
  matched: number;
  /** Those into temporary wallets from the gateway's own addresses: not deposits. */
  ownTransfers: number;
  /** Deposits inserted, or brought back to `seen`, by this range. */
  written: number;
  /** The ids of the deposits this range inserted (not those brought back). */
  inserted: string[];
  timingsMs: { chain: number; match: number; write: number };
}

/** The chain changed under a range while it was read; nothing was written. */
export class ChainMovedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainMovedError';
  }
}

/** The stored cursor is no longer the one the range started from; nothing was written. */
export class CursorMovedError extends Error {
  constructor() {
    super('the chain cursor was moved by someone else');
    this.name = 'CursorMovedError';
  }
}

export interface DepositScannerDeps {
  pool: Pool;
  chain: ChainReader;
  deposits: DepositRepository;
  cursors: ChainCursorRepository;
  cursorKey: ChainCursorKey;
  /** The settled USDC, then the other one when it is followed: read together, one eth_getLogs per range. */
  tokens: readonly Address[];
  maxBlockRange: number;
  metrics: WatcherMetrics;
}

/**
 * Reads one block range after the cursor: the tokens' Transfer logs, matched against the
 * temporary wallets with one query, written as deposits together with the cursor move, in one
 * transaction. A range is all or nothing, so a failure anywhere loses no block.
 */
export class DepositScanner {
  private readonly width: LogRangeWidth;

  constructor(private readonly deps: DepositScannerDeps) {
    this.width = new LogRangeWidth(deps.maxBlockRange);
  }

  async scanNext(cursor: ChainCursor, head: bigint): Promise<ScanResult> {
    const stopTimer = this.deps.metrics.batchDuration.startTimer();
    const started = performance.now();
    const fromBlock = cursor.blockNumber + 1n;
    const { toBlock, toHash, logs } = await this.readRange(cursor, fromBlock, head);
    const chainDone = performance.now();

    const transfers = logs.filter((log) => log.value > 0n && log.blockNumber >= fromBlock && log.blockNumber <= toBlock);
    const wallets = await this.deps.deposits.matchTemporaryWallets([...new Set(transfers.map((log) => log.to))]);
    const intoWallets = transfers.filter((log) => wallets.has(log.to));
    // A second query only for ranges with transfers into temporary wallets, and only their senders.
    const ownSenders = await this.deps.deposits.gatewaySenders([...new Set(intoWallets.map((log) => log.from))]);
    // The ledger dates a deposit by its block: the logs a node gave without their block's time get it from the headers.
    const untimed = [
      ...new Set(intoWallets.filter((log) => log.blockTime === undefined && !ownSenders.has(log.from)).map((log) => log.blockHash)),
    ];
    const headerTimes = untimed.length > 0 ? await this.deps.chain.blockTimes(untimed) : new Map<string, Date>();
    const deposits: NewDeposit[] = [];
    const ownTransfers: GatewaySender[] = [];
    for (const log of intoWallets) {
      const walletId = wallets.get(log.to)!;
      // The gateway moving its own USDC (a payout leg aimed at another temporary wallet, a
      // relayer or fee-address transfer) is no customer's payment: never settled, never called back.
      const ownSender = ownSenders.get(log.from);
      if (ownSender !== undefined) {
        ownTransfers.push(ownSender);
        continue;
      }
      const blockTime = log.blockTime ?? headerTimes.get(log.blockHash);
      if (blockTime === undefined) throw new ChainMovedError(`block ${log.blockHash} is gone`);
      deposits.push({
        token: log.token,
        txHash: log.txHash,
        logIndex: log.logIndex,
        blockNumber: log.blockNumber,
        blockHash: log.blockHash,
        blockTime,
        walletId,
        fromAddress: log.from,
        amount: log.value,
      });
    }
    const matchDone = performance.now();

    const next: ChainCursor = { blockNumber: toBlock, blockHash: toHash };
    const rows = await inTransaction(this.deps.pool, async (client) => {
      const recorded = await this.deps.deposits.recordSeen(client, deposits);
      if (!(await this.deps.cursors.move(client, this.deps.cursorKey, cursor, next))) throw new CursorMovedError();
      return recorded;
    });
    const writeDone = performance.now();

    this.deps.metrics.deposits.inc({ status: 'seen' }, rows.length);
    const otherSeen = rows.filter((row) => row.token !== null && row.token !== this.deps.tokens[0]).length;
    if (otherSeen > 0) this.deps.metrics.otherTokenDeposits.inc(otherSeen);
    for (const from of ownTransfers) this.deps.metrics.ownTransfers.inc({ from });
    stopTimer();
    return {
      cursor: next,
      fromBlock,
      toBlock,
      transfers: transfers.length,
      matched: deposits.length,
      ownTransfers: ownTransfers.length,
      written: rows.length,
      inserted: rows.filter((row) => row.inserted).map((row) => row.id),
      timingsMs: { chain: chainDone - started, match: matchDone - chainDone, write: writeDone - matchDone },
    };
  }

  /**
   * The logs of the next range, checked to belong to one chain: the block at the range's end
   * has the same hash before and after eth_getLogs, and the cursor's block is still its
   * ancestor. A node that refuses the range (too many logs, range too wide) gets half of it.
   */
  private async readRange(cursor: ChainCursor, fromBlock: bigint, head: bigint) {
    const { chain, tokens } = this.deps;
    for (;;) {
      const toBlock = this.width.end(fromBlock, head);
      const toHash = await chain.blockHash(toBlock);
      if (toHash === undefined) throw new ChainMovedError(`block ${toBlock} is gone`);
      let logs: TransferLog[];
      try {
        logs = await chain.transferLogs(tokens, fromBlock, toBlock);
      } catch (error) {
        if (error instanceof RpcCallError && error.answered && this.width.refused()) continue;
        throw error;
      }
      const [toHashAfter, cursorHashNow] = await Promise.all([chain.blockHash(toBlock), chain.blockHash(cursor.blockNumber)]);
      if (toHashAfter !== toHash || cursorHashNow !== cursor.blockHash) {
        throw new ChainMovedError(`blocks ${cursor.blockNumber}..${toBlock} changed while they were read`);
      }
      this.width.served();
      return { toBlock, toHash, logs };
    }
  }
}
