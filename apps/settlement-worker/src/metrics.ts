import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type SettlementOutcome = 'forwarded' | 'held' | 'orphaned' | 'not_final' | 'busy' | 'interrupted' | 'error';
export type RelayerSendKind = 'initial' | 'rebroadcast' | 'fee-bump' | 're-signed' | 'new-nonce';

/** The settlement worker's own Prometheus metrics, registered on the app's registry. */
export class SettlementMetrics {
  readonly depositsSettled: Counter<'outcome'>;
  readonly legsConfirmed: Counter<'leg'>;
  readonly transactionsSent: Counter<'kind'>;
  readonly chainErrors: Counter;
  readonly jobDuration: Histogram<'outcome'>;
  readonly relayerBalance: Gauge;
  readonly reconcilerEnqueued: Counter;

  constructor(registry: Registry) {
    const registers = [registry];
    this.depositsSettled = new Counter({
      name: 'settlement_deposits_total',
      help: 'Settlement job runs by outcome (forwarded, held as dust, orphaned, not final yet, busy elsewhere, interrupted by shutdown, error)',
      labelNames: ['outcome'],
      registers,
    });
    this.legsConfirmed = new Counter({
      name: 'settlement_payout_legs_confirmed_total',
      help: 'Payout legs confirmed on chain, by leg (merchant, platform, affiliate)',
      labelNames: ['leg'],
      registers,
    });
    this.transactionsSent = new Counter({
      name: 'settlement_relayer_transactions_total',
      help: 'Relayer transactions broadcast, by kind (initial, rebroadcast, fee-bump, re-signed, new-nonce)',
      labelNames: ['kind'],
      registers,
    });
    this.chainErrors = new Counter({
      name: 'settlement_chain_errors_total',
      help: 'Failed chain requests during settlement (each is retried)',
      registers,
    });
    this.jobDuration = new Histogram({
      name: 'settlement_job_duration_seconds',
      help: 'Time to settle one deposit, by outcome',
      labelNames: ['outcome'],
      buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
      registers,
    });
    this.relayerBalance = new Gauge({
      name: 'settlement_relayer_balance_native',
      help: 'Native balance of the relayer (gas) wallet, in whole coins; refill before it runs dry',
      registers,
    });
    this.reconcilerEnqueued = new Counter({
      name: 'settlement_reconciler_enqueued_total',
      help: 'Deposits the reconciler found without a live job and enqueued again',
      registers,
    });
  }
}
