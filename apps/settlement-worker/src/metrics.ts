import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { FinalityGauges } from '@gateway/chain';
import type { ForwardedOrder } from '@gateway/db/settlement-worker';

/**
 * What a relayer transaction was sent for: a payout leg's (first, again, replaced), a nonce filler, or
 * the replan command's cancellation.
 */
export type RelayerSendKind =
  | 'initial'
  | 'rebroadcast'
  | 'fee-bump'
  | 're-signed'
  | 'new-nonce'
  | 'nonce-filler'
  | 'cancel'
  | 'cancel-rebroadcast'
  | 'cancel-fee-bump';

/** The settlement worker's own Prometheus metrics, registered on the app's registry. */
export class SettlementMetrics {
  readonly jobRuns: Counter<'outcome'>;
  readonly legsConfirmed: Counter<'leg'>;
  readonly transactionsSent: Counter<'kind'>;
  readonly chainErrors: Counter;
  readonly jobRunDuration: Histogram<'outcome'>;
  readonly finalToForwarded: Histogram;
  readonly relayerBalance: Gauge;
  readonly reconcilerEnqueued: Counter;
  readonly reconcilerPromoted: Counter;
  readonly oldestUnsettledSeconds: Gauge;
  readonly dustHeldDeposits: Gauge;
  readonly dustHeldUsdc: Gauge;
  readonly depositsNeedingAttention: Gauge;
  readonly heldForOperatorDeposits: Gauge;
  readonly heldForOperatorUsdc: Gauge;
  readonly needsAttention: Counter<'reason'>;
  readonly legWaits: Counter<'reason'>;
  readonly payoutsHeld: Counter<'reason'>;
  readonly orderDeposits: Counter<'state' | 'provider'>;

  readonly finality: FinalityGauges;
  readonly feeCeiling: Counter<'outcome'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.finality = new FinalityGauges(registry, 'payouts');
    this.feeCeiling = new Counter({
      name: 'settlement_fee_ceiling_total',
      help:
        'MAX_FEE_PER_GAS_GWEI at work: capped = a payout transaction signed at the ceiling instead of its estimate or bump; held = a ' +
        'stuck one left as it is, already at the ceiling (once per transaction)',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['capped', 'held']) this.feeCeiling.inc({ outcome }, 0);
    this.jobRuns = new Counter({
      name: 'settlement_job_runs_total',
      help:
        "Runs of settlement jobs (each one round over a deposit's payout legs), by outcome (forwarded: every leg confirmed, " +
        'in_flight: runs again, held, orphaned, not_final, busy elsewhere, error)',
      labelNames: ['outcome'],
      registers,
    });
    this.legsConfirmed = new Counter({
      name: 'settlement_payout_legs_confirmed_total',
      help: 'Payout legs confirmed on chain, by leg (merchant, platform, affiliate)',
      labelNames: ['leg'],
      registers,
    });
    this.needsAttention = new Counter({
      name: 'settlement_needs_attention_total',
      help:
        'Payout legs moved to needs_attention (the token will refuse them however often they are sent), by reason; each waits for an ' +
        'operator (replan)',
      labelNames: ['reason'],
      registers,
    });
    this.legWaits = new Counter({
      name: 'settlement_payout_leg_waits_total',
      help:
        'Rounds in which a payout leg could not be sent for a reason that passes on its own (token_paused), by reason; retried with ' +
        'back-off',
      labelNames: ['reason'],
      registers,
    });
    this.transactionsSent = new Counter({
      name: 'settlement_relayer_transactions_total',
      help:
        'Relayer transactions broadcast, by kind (initial, rebroadcast, fee-bump, re-signed, new-nonce, nonce-filler: a 0-value ' +
        'transfer spending a nonce our dropped transaction held after someone else paid its leg; cancel, cancel-rebroadcast, ' +
        'cancel-fee-bump: the replan command cancelling an authorization)',
      labelNames: ['kind'],
      registers,
    });
    this.payoutsHeld = new Counter({
      name: 'settlement_payouts_held_total',
      help:
        "Deposits held instead of paid out, by reason (dust: below DUST_THRESHOLD with the wallet's held dust; below_gas_cost: its " +
        "platform fee is worth less than the payout's gas; both go with the next payout of their wallet; other_token: in the other " +
        'USDC (USDC.e), held for the operator)',
      labelNames: ['reason'],
      registers,
    });
    for (const reason of ['dust', 'below_gas_cost', 'other_token']) this.payoutsHeld.inc({ reason }, 0);
    this.orderDeposits = new Counter({
      name: 'settlement_order_deposits_total',
      help:
        'Deposits forwarded, by the state of their order as their callback reports it (paid, underpaid, overpaid, late; none when no ' +
        'payment attempt recorded what the order should bring) and the provider of the attempt it was judged by (none likewise): ' +
        'underpaid over all, by provider, is the share of orders a provider delivers short',
      labelNames: ['state', 'provider'],
      registers,
    });
    this.chainErrors = new Counter({
      name: 'settlement_chain_errors_total',
      help: 'Failed chain requests during settlement (each is retried)',
      registers,
    });
    this.jobRunDuration = new Histogram({
      name: 'settlement_job_run_duration_seconds',
      help: 'Duration of one run of a settlement job (one round over the legs: a few chain requests each), by outcome',
      labelNames: ['outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.finalToForwarded = new Histogram({
      name: 'settlement_final_to_forwarded_seconds',
      help: 'From a deposit becoming final to its payout confirmed and the deposit marked forwarded (its callback written)',
      buckets: [1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 21_600],
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
    this.reconcilerPromoted = new Counter({
      name: 'settlement_reconciler_promoted_total',
      help: 'Settlement jobs the reconciler found delayed past the retry schedule and promoted to run now',
      registers,
    });
    this.oldestUnsettledSeconds = new Gauge({
      name: 'settlement_oldest_unsettled_deposit_seconds',
      help: 'Seconds since the oldest deposit still final or forwarding became final (0 when none); refreshed each reconciler pass',
      registers,
    });
    this.dustHeldDeposits = new Gauge({
      name: 'settlement_dust_held_deposits',
      help: 'Deposits held below DUST_THRESHOLD, waiting for the next payout of their wallet or gateway dust sweep',
      registers,
    });
    this.dustHeldUsdc = new Gauge({
      name: 'settlement_dust_held_usdc',
      help: 'Sum of the held deposits in whole USDC (base units / 10^6)',
      registers,
    });
    this.heldForOperatorDeposits = new Gauge({
      name: 'settlement_other_token_held_deposits',
      help: 'Deposits of the other USDC (USDC.e) held for the operator now: customers paid, merchants not paid',
      registers,
    });
    this.heldForOperatorUsdc = new Gauge({
      name: 'settlement_other_token_held_usdc',
      help: 'Sum of the deposits of the other USDC held for the operator, in whole tokens (base units / 10^6)',
      registers,
    });
    this.depositsNeedingAttention = new Gauge({
      name: 'settlement_deposits_needing_attention',
      help: 'Deposits in needs_attention now (their payout will not succeed by retrying; an operator replans them)',
      registers,
    });
  }

  /** One forwarded deposit, counted under its order's state and provider as its new callback delivery was written with them. */
  countOrderDeposit(order: ForwardedOrder): void {
    this.orderDeposits.inc({ state: order.judged?.state ?? 'none', provider: order.provider ?? 'none' });
  }
}
