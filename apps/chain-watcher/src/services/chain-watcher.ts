import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Pool } from 'pg';
import type { ChainCursor, ChainCursorKey, ChainCursorRepository, DepositRepository } from '@gateway/db/chain-watcher';
import { attemptThatPaid, type FinalityView } from '@gateway/domain';
import { backoffDelayMs, reorgFloor } from '../chain-rules';
import type { WatcherMetrics } from '../metrics';
import type { ChainReader, ChainTip } from './chain-reader';
import { ChainMovedError, CursorMovedError, type DepositScanner } from './deposit-scanner';
import type { FinalityTracker } from './finality-tracker';
import { LeadershipLostError, type LeaderLock } from './leader-lock';
import type { SettlementEnqueuer } from './settlement-enqueuer';

export interface ChainWatcherOptions {
  cursorKey: ChainCursorKey;
  confirmations: number;
  /** Block the first cursor points at; undefined: the head at the first round. */
  startBlock: bigint | undefined;
  pollIntervalMs: number;
  leaderRetryMs: number;
  backoffMaxMs: number;
}

export interface ChainWatcherDeps {
  pool: Pool;
  chain: ChainReader;
  leader: LeaderLock;
  scanner: DepositScanner;
  finality: FinalityTracker;
  cursors: ChainCursorRepository;
  deposits: DepositRepository;
  settlement: SettlementEnqueuer;
  metrics: WatcherMetrics;
  log: FastifyBaseLogger;
  options: ChainWatcherOptions;
}

export interface ChainWatcherStatus {
  role: 'leader' | 'standby' | 'stopped';
  chainId: number;
  token: string;
  cursorBlock: string | null;
  headBlock: string | null;
  leaderSessionPid: number | null;
}

// Ranges read before the round pauses to advance finality (matters only while catching up).
const MAX_RANGES_PER_ROUND = 20;
const BACKOFF_BASE_MS = 500;
// Deposit blocks checked when looking for the newest block a reorg left in place.
const ANCESTOR_CANDIDATES = 50;

/**
 * Follows one chain for one token while this instance leads: each round checks the cursor is
 * still on the canonical chain (moving it back past a reorg), reads the ranges after it, then
 * orphans or finalizes unfinal deposits and queues settlement for the final ones. Any error ends
 * the round with the cursor where the last committed range left it, and the next round comes
 * after an exponential backoff.
 */
export class ChainWatcher {
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  private chainIdVerified = false;
  private cursor: ChainCursor | undefined;
  private head: bigint | undefined;

  constructor(private readonly deps: ChainWatcherDeps) {}

  start(): void {
    this.running ??= this.run();
  }

  /** Ends the loop after the round in flight; the caller then releases the lock and clients. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  status(): ChainWatcherStatus {
    const { cursorKey } = this.deps.options;
    const role = this.stopping.signal.aborted ? 'stopped' : this.deps.leader.isLeader ? 'leader' : 'standby';
    return {
      role,
      chainId: cursorKey.chainId,
      token: cursorKey.token,
      cursorBlock: this.cursor?.blockNumber.toString() ?? null,
      headBlock: this.head?.toString() ?? null,
      leaderSessionPid: this.deps.leader.leaderSessionPid ?? null,
    };
  }

  private async run(): Promise<void> {
    const { options, leader, metrics, log } = this.deps;
    let failures = 0;
    let ledLastRound = false;
    while (!this.stopping.signal.aborted) {
      if (ledLastRound && !leader.isLeader) {
        // Whatever ended our session may be wrong with this instance: let a standby go first.
        log.warn('lost the lead; standing by');
        metrics.leader.set(0);
        ledLastRound = false;
        await this.sleep(options.leaderRetryMs * 2);
        continue;
      }
      if (!(await this.lead())) {
        await this.sleep(options.leaderRetryMs);
        continue;
      }
      ledLastRound = true;
      try {
        const caughtUp = await this.round();
        failures = 0;
        await this.sleep(caughtUp ? options.pollIntervalMs : 0);
      } catch (error) {
        if (error instanceof LeadershipLostError) continue;
        if (error instanceof ChainMovedError || error instanceof CursorMovedError) {
          log.info({ reason: error.message }, 'range left unread; the next round reads it again');
          await this.sleep(options.pollIntervalMs);
          continue;
        }
        failures += 1;
        const waitMs = backoffDelayMs(failures, BACKOFF_BASE_MS, options.backoffMaxMs);
        log.warn({ err: error, failures, retryInMs: waitMs }, 'watcher round failed; retrying');
        await this.sleep(waitMs);
      }
    }
    metrics.leader.set(0);
  }

  /** True when this instance leads (taking the lead now if it is free). */
  private async lead(): Promise<boolean> {
    const { leader, metrics, log, options } = this.deps;
    if (leader.isLeader) return true;
    try {
      if (!(await leader.tryAcquire())) {
        metrics.leader.set(0);
        return false;
      }
    } catch (error) {
      log.warn({ err: error }, 'cannot reach PostgreSQL for the leader lock');
      return false;
    }
    this.chainIdVerified = false;
    metrics.leader.set(1);
    log.info({ chainId: options.cursorKey.chainId, token: options.cursorKey.token }, 'leading the chain watch');
    return true;
  }

  /** One pass; true when the cursor has reached the head. */
  private async round(): Promise<boolean> {
    const { leader, chain, scanner, metrics, log } = this.deps;
    await leader.confirm();
    await this.verifyChainId();
    const tip = await chain.tip();
    const finality = this.deps.finality.observe(tip);
    this.head = tip.head;
    metrics.headBlock.set(Number(tip.head));

    let cursor = await this.followReorg(await this.loadCursor(tip), finality);
    this.cursor = cursor;
    for (let ranges = 0; cursor.blockNumber < tip.head && ranges < MAX_RANGES_PER_ROUND; ranges += 1) {
      if (!leader.isLeader) throw new LeadershipLostError();
      const result = await scanner.scanNext(cursor, tip.head);
      cursor = result.cursor;
      this.cursor = cursor;
      metrics.observePosition(tip.head, cursor.blockNumber);
      if (result.written > 0) {
        log.info({ fromBlock: result.fromBlock, toBlock: result.toBlock, deposits: result.written }, 'deposits seen');
      }
      await this.observeCheckoutToUsdc(result.inserted);
    }
    metrics.observePosition(tip.head, cursor.blockNumber);

    const { orphaned, restored, finalIds } = await this.deps.finality.update(finality);
    if (orphaned > 0) {
      log.warn(
        { orphaned },
        'deposits orphaned: their block left the chain and no receipt has their transfer; looked up again each round until the finalized ' +
          'block passes them',
      );
    }
    if (restored > 0) log.warn({ restored }, 'orphaned deposits back to seen: their transaction is in a canonical block');
    if (finalIds.length > 0) log.info({ final: finalIds.length }, 'deposits final');
    this.queueSettlement(finalIds);
    return cursor.blockNumber >= tip.head;
  }

  /**
   * The time from checkout to USDC received, once per deposit (when it is inserted), for the
   * payment it is credited to; a metric only: a failure here is logged and loses no deposit.
   */
  private async observeCheckoutToUsdc(depositIds: readonly string[]): Promise<void> {
    if (depositIds.length === 0) return;
    try {
      for (const deposit of await this.deps.deposits.checkoutsOf(depositIds)) {
        const creditedId = attemptThatPaid(deposit, deposit.attempts);
        const credited = deposit.attempts.find((attempt) => attempt.id === creditedId);
        if (!credited) continue;
        const seconds = Math.max(0, (deposit.seenAt.getTime() - credited.createdAt.getTime()) / 1000);
        this.deps.metrics.checkoutToUsdc.observe({ provider: credited.provider }, seconds);
      }
    } catch (error) {
      this.deps.log.warn({ err: error }, 'could not attribute new deposits to checkouts (chain_watcher_checkout_to_usdc_seconds)');
    }
  }

  private async verifyChainId(): Promise<void> {
    if (this.chainIdVerified) return;
    const expected = this.deps.options.cursorKey.chainId;
    const actual = await this.deps.chain.chainId();
    if (actual !== expected) throw new Error(`the RPC serves chain id ${actual}, but CHAIN_ID is ${expected}`);
    this.chainIdVerified = true;
  }

  private async loadCursor(tip: ChainTip): Promise<ChainCursor> {
    const { cursors, chain, options } = this.deps;
    const stored = await cursors.get(options.cursorKey);
    if (stored) return stored;
    const start = options.startBlock ?? tip.head;
    const blockHash = await chain.blockHash(start);
    if (blockHash === undefined) throw new Error(`START_BLOCK ${start + 1n} is past the chain head ${tip.head}`);
    const cursor = await cursors.initialize(options.cursorKey, { blockNumber: start, blockHash });
    this.deps.log.info({ cursorBlock: cursor.blockNumber }, 'no cursor stored; starting after this block');
    return cursor;
  }

  /**
   * Keeps the cursor on the canonical chain. When the block at the cursor's height has another
   * hash, the cursor goes back to the newest block known to be unchanged: a recorded deposit
   * block still canonical, or else the newest block the finality rule counts as final. Scanning
   * from there again writes nothing twice; deposits left in dropped blocks are orphaned by the
   * finality pass.
   * A node that does not have the cursor's block yet (behind us) is waited for.
   */
  private async followReorg(cursor: ChainCursor, finality: FinalityView): Promise<ChainCursor> {
    const { chain, cursors, deposits, metrics, log, options } = this.deps;
    const canonical = await chain.blockHash(cursor.blockNumber);
    if (canonical === undefined || canonical === cursor.blockHash) return cursor;

    const floor = reorgFloor(cursor.blockNumber, finality, options.confirmations);
    const recorded = await deposits.recordedBlocksBetween(floor, cursor.blockNumber, ANCESTOR_CANDIDATES);
    const hashes = await chain.blockHashes(recorded.map((block) => block.blockNumber));
    let target: ChainCursor | undefined = recorded.find((block) => hashes.get(block.blockNumber) === block.blockHash);
    if (!target) {
      const floorHash = await chain.blockHash(floor);
      if (floorHash === undefined) throw new ChainMovedError(`block ${floor} is gone`);
      target = { blockNumber: floor, blockHash: floorHash };
    }
    if (!(await cursors.move(this.deps.pool, options.cursorKey, cursor, target))) throw new CursorMovedError();
    metrics.reorgs.inc();
    log.warn(
      { cursorBlock: cursor.blockNumber, recordedHash: cursor.blockHash, canonicalHash: canonical, rewoundTo: target.blockNumber },
      'reorg at the cursor; reading again from an unchanged block',
    );
    return target;
  }

  private queueSettlement(finalIds: readonly string[]): void {
    this.deps.settlement.enqueue(finalIds);
    this.deps.metrics.settlementJobsPending.set(this.deps.settlement.pendingCount);
  }

  private async sleep(ms: number): Promise<void> {
    if (ms <= 0) return;
    await delay(ms, undefined, { signal: this.stopping.signal }).catch(() => undefined);
  }
}
