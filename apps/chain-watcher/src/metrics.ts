import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { FinalityView } from '@gateway/domain';
import { FinalityGauges } from '@gateway/chain';

/** restored: an orphaned deposit whose transaction is in a canonical block again, back to seen. */
export type DepositEvent = 'seen' | 'final' | 'orphaned' | 'restored';

/** What an operator watches: is the watcher leading, keeping up, and seeing deposits? */
export class WatcherMetrics {
  readonly headBlock: Gauge;
  readonly finalizedBlock: Gauge;
  readonly finality: FinalityGauges;
  readonly cursorBlock: Gauge;
  readonly lagBlocks: Gauge;
  readonly leader: Gauge;
  readonly deposits: Counter<'status'>;
  readonly ownTransfers: Counter<'from'>;
  readonly otherTokenDeposits: Counter;
  readonly rpcErrors: Counter<'method'>;
  readonly reorgs: Counter;
  readonly settlementJobsPending: Gauge;
  readonly batchDuration: Histogram;
  readonly checkoutToUsdc: Histogram<'provider'>;

  constructor(readonly registry: Registry = new Registry()) {
    const registers = [registry];
    this.headBlock = new Gauge({ name: 'chain_watcher_head_block', help: 'latest block number of the chain', registers });
    this.finalizedBlock = new Gauge({
      name: 'chain_watcher_finalized_block',
      help: "the chain's finalized block (0 when the RPC does not report one)",
      registers,
    });
    this.finality = new FinalityGauges(registry, 'deposits');
    this.cursorBlock = new Gauge({ name: 'chain_watcher_cursor_block', help: 'last block fully processed', registers });
    this.lagBlocks = new Gauge({ name: 'chain_watcher_lag_blocks', help: 'head minus cursor', registers });
    this.leader = new Gauge({ name: 'chain_watcher_leader', help: '1 when this instance holds the lead for its chain', registers });
    this.deposits = new Counter({
      name: 'chain_watcher_deposits_total',
      help: 'deposits that became seen, final or orphaned, or came back from orphaned (restored), in this process',
      labelNames: ['status'] as const,
      registers,
    });
    for (const status of ['seen', 'final', 'orphaned', 'restored'] satisfies DepositEvent[]) this.deposits.inc({ status }, 0);
    this.ownTransfers = new Counter({
      name: 'chain_watcher_own_transfers_total',
      help:
        "USDC transfers into a temporary wallet from the gateway's own addresses (a temporary wallet, the relayer, the platform " +
        'fee address), by sender: not deposits, never settled',
      labelNames: ['from'] as const,
      registers,
    });
    this.otherTokenDeposits = new Counter({
      name: 'chain_watcher_other_token_deposits_total',
      help:
        'deposits of the other USDC (OTHER_USDC_TOKEN_ADDRESS, USDC.e on Polygon) seen or seen again, in this process; also ' +
        'counted in chain_watcher_deposits_total',
      registers,
    });
    this.rpcErrors = new Counter({
      name: 'chain_watcher_rpc_errors_total',
      help: 'failed or timed-out JSON-RPC calls, by method',
      labelNames: ['method'] as const,
      registers,
    });
    this.reorgs = new Counter({ name: 'chain_watcher_reorgs_total', help: 'reorgs that moved the cursor back', registers });
    this.settlementJobsPending = new Gauge({
      name: 'chain_watcher_settlement_jobs_pending',
      help: 'final deposits whose settlement job Redis has not taken yet (retried each round)',
      registers,
    });
    this.batchDuration = new Histogram({
      name: 'chain_watcher_scan_batch_duration_seconds',
      help: 'one block range: eth_getLogs, wallet match, deposit insert and cursor move',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.checkoutToUsdc = new Histogram({
      name: 'chain_watcher_checkout_to_usdc_seconds',
      help:
        'from the checkout of the payment a new deposit is credited to (Process Payment, or the second chance) to the deposit seen ' +
        "on chain, by that payment's provider",
      labelNames: ['provider'] as const,
      buckets: [30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21_600, 86_400],
      registers,
    });
  }

  observeFinality(view: FinalityView, finalized: bigint | undefined): void {
    this.finality.observe(view);
    this.finalizedBlock.set(Number(finalized ?? 0n));
  }

  observePosition(head: bigint, cursor: bigint): void {
    this.headBlock.set(Number(head));
    this.cursorBlock.set(Number(cursor));
    this.lagBlocks.set(Number(head > cursor ? head - cursor : 0n));
  }
}
