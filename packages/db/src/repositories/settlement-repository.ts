import type { Pool } from 'pg';
import {
  DEPOSIT_MOVES,
  DEPOSIT_STATUSES_OWING_SETTLEMENT,
  orderStanding,
  PAYOUT_LEG_MOVES,
  PAYOUT_LEG_STATUSES_UNPAID,
  sqlStatusList,
  type DepositStatus,
  type NeedsAttentionReason,
  type PayoutLegKind,
  type PayoutLegStatus,
} from '@gateway/domain';
import { trySessionLock, type SessionLock } from '../session-lock';
import { inTransaction } from '../in-transaction';
import { type DeliveryOrderFigures, insertCallbackDelivery, type NewCallbackDelivery } from './callback-delivery-writer';
import { readOrderFacts } from './order-facts';
import { insertPayoutLegs, type NewPayoutLeg } from './payout-repository';

/** A deposit with what settlement needs of its wallet. */
export interface SettlementDeposit {
  id: string;
  chainId: number;
  txHash: string;
  /** Its Transfer's log index: with chainId and txHash, what names the deposit on chain (and in a restored database). */
  logIndex: number;
  blockNumber: bigint;
  amount: bigint;
  status: DepositStatus;
  walletId: string;
  hdIndex: bigint;
  /** The temporary wallet (lower-case hex). */
  temporaryAddress: string;
  payoutAddress: string;
  affiliateAddress: string | null;
  affiliateFeeBps: number | null;
  /** The platform's share, recorded on the wallet when it was created: what its deposits pay, whatever PLATFORM_FEE_BPS says now. */
  platformFeeBps: number;
  /** Held dust of its wallet that its payout carries (deposits it swept); its legs pay amount + sweptAmount. */
  sweptAmount: bigint;
  /** The token of its Transfer, lower-case hex; null in rows no app wrote (the counted token, migration 023). */
  token: string | null;
}

/** A deposit held below the dust threshold, waiting for the next payout of its wallet. */
export interface HeldDeposit {
  id: string;
  amount: bigint;
}

/** A wallet's held dust, oldest deposit first. */
export interface WalletHeldDust {
  walletId: string;
  /** The temporary wallet (lower-case hex). */
  temporaryAddress: string;
  held: HeldDeposit[];
}

/** What a payout sweeps besides its own deposit. */
export interface DustSweep {
  /** Held deposits of the same wallet the payout carries: held → swept, naming the carrying deposit. */
  sweptDepositIds: readonly string[];
  /** The carrying deposit's status: final (its own settlement), or held (an operator's dust sweep). */
  from: 'final' | 'held';
}

/** The numbers behind the settlement backlog gauges. */
export interface SettlementBacklog {
  /** Age of the oldest deposit owing settlement (final or forwarding), seconds since it became final; 0 when none. */
  oldestOwingSeconds: number;
  heldDeposits: number;
  /** Their sum, USDC base units. */
  heldAmount: bigint;
  /** Deposits waiting for a person (needs_attention). */
  needingAttention: number;
  /** Deposits of the other USDC held for the operator, and their sum in that token's base units. */
  heldForOperator: number;
  heldForOperatorAmount: bigint;
}

// A guarded sweep found fewer held deposits than it was planned with: another payout swept them.
class SweptMeanwhile extends Error {}

// A re-plan found a leg that had left the statuses it was prepared from: roll everything back.
class ReplanRaced extends Error {}

/** A leg of a deposit waiting for a person, as an operator reads it. */
export interface LegNeedingAttention {
  id: string;
  leg: PayoutLegKind;
  status: PayoutLegStatus;
  toAddress: string;
  amount: bigint;
  reason: NeedsAttentionReason | null;
  detail: string | null;
}

/** A deposit waiting for a person (needs_attention, or forwarded with a leg that needs attention). */
export interface DepositNeedingAttention {
  depositId: string;
  status: DepositStatus;
  amount: bigint;
  txHash: string;
  /** The deposit's reason (its merchant leg's); null for a forwarded deposit, whose legs say. */
  reason: NeedsAttentionReason | null;
  detail: string | null;
  since: Date | null;
  temporaryAddress: string;
  payoutAddress: string;
  /** Its active legs. */
  legs: LegNeedingAttention[];
}

type RawDepositNeedingAttention = Omit<DepositNeedingAttention, 'amount' | 'legs'> & {
  amount: string;
  legs: (Omit<LegNeedingAttention, 'amount'> & { amount: string })[] | null;
};

export interface CallbackDeliveryRef {
  id: string;
  status: string;
}

/** The delivery written with a deposit's forwarding, and how long the deposit had been final then (null for a deposit forwarded before). */
export interface ForwardedDelivery extends CallbackDeliveryRef {
  finalForSeconds: number | null;
  /** What the new delivery says of its order (absent for a deposit forwarded before: nothing was written). */
  order?: ForwardedOrder;
}

/** The order's figures a new delivery was written with, and the provider of the attempt they were judged by (absent with `judged`). */
export interface ForwardedOrder extends DeliveryOrderFigures {
  provider?: string;
}

/** Held while one worker settles a deposit; other workers skip the deposit until it is released. */
export type DepositLock = SessionLock;

/**
 * The deposit side of settlement: each step is one guarded status transition (WHERE status = ...),
 * so two workers can never both plan a deposit or both mark it forwarded.
 */
export class SettlementRepository {
  constructor(private readonly pool: Pool) {}

  async findDeposit(depositId: string): Promise<SettlementDeposit | undefined> {
    const { rows } = await this.pool.query<
      Omit<SettlementDeposit, 'blockNumber' | 'amount' | 'hdIndex' | 'sweptAmount'> & {
        blockNumber: string;
        amount: string;
        hdIndex: string;
        sweptAmount: string;
      }
    >({
      name: 'settlement-deposit',
      text: `SELECT d.id::text AS "id", d.chain_id AS "chainId", d.tx_hash AS "txHash", d.log_index AS "logIndex",
                    d.block_number::text AS "blockNumber", d.amount::text AS amount, d.status, w.id::text AS "walletId", w.hd_index::text AS "hdIndex",
                    w.polygon_address AS "temporaryAddress", w.payout_address AS "payoutAddress",
                    w.affiliate_address AS "affiliateAddress", w.affiliate_fee_bps AS "affiliateFeeBps",
                    w.platform_fee_bps AS "platformFeeBps", d.token,
                    (SELECT coalesce(sum(s.amount), 0)::text FROM deposits s
                     WHERE s.swept_by_deposit_id = d.id AND s.status = 'swept') AS "sweptAmount"
             FROM deposits d JOIN wallets w ON w.id = d.wallet_id WHERE d.id = $1`,
      values: [depositId],
    });
    const row = rows[0];
    if (!row) return undefined;
    return {
      ...row,
      blockNumber: BigInt(row.blockNumber),
      amount: BigInt(row.amount),
      hdIndex: BigInt(row.hdIndex),
      sweptAmount: BigInt(row.sweptAmount),
    };
  }

  /** One worker at a time settles the deposit (undefined when another holds it). */
  tryLockDeposit(depositId: string): Promise<DepositLock | undefined> {
    return trySessionLock(this.pool, 'settlement-deposit', depositId);
  }

  /**
   * final → held_for_operator: a deposit of the other USDC, never forwarded (migration 023's trigger
   * refuses anything else for it). False if the deposit was not final any more.
   */
  async holdOtherToken(depositId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query({
      name: 'settlement-hold-other-token',
      text: `UPDATE deposits SET status = '${DEPOSIT_MOVES.holdOtherToken.to}', held_at = now()
             WHERE id = $1 AND status IN (${sqlStatusList(DEPOSIT_MOVES.holdOtherToken.from)})`,
      values: [depositId],
    });
    return rowCount === 1;
  }

  /** final → held (below the dust threshold). False if the deposit was not final any more. */
  async holdDust(depositId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query({
      name: 'settlement-hold-dust',
      text: `UPDATE deposits SET status = 'held', held_at = now() WHERE id = $1 AND status = 'final'`,
      values: [depositId],
    });
    return rowCount === 1;
  }

  /**
   * final (or held, for an operator's sweep) → forwarding, the held dust it carries → swept, and
   * the legs written, in one transaction, before anything is signed. False (and nothing written)
   * if the deposit had left that status, or a held deposit of the sweep was swept meanwhile by
   * another payout of the wallet: plan again from what is held now.
   */
  async startForwarding(
    depositId: string,
    legs: readonly NewPayoutLeg[],
    sweep: DustSweep = { sweptDepositIds: [], from: 'final' },
  ): Promise<boolean> {
    const move = sweep.from === 'held' ? DEPOSIT_MOVES.forwardHeldDust : DEPOSIT_MOVES.startForwarding;
    try {
      return await inTransaction(this.pool, async (client) => {
        const { rows } = await client.query<{ walletId: string }>(
          `UPDATE deposits SET status = 'forwarding' WHERE id = $1 AND status IN (${sqlStatusList(move.from)})
           RETURNING wallet_id::text AS "walletId"`,
          [depositId],
        );
        const carrier = rows[0];
        if (!carrier) return false;
        if (sweep.sweptDepositIds.length > 0) {
          const { rowCount } = await client.query(
            `UPDATE deposits SET status = 'swept', swept_by_deposit_id = $1
             WHERE id = ANY($2::bigint[]) AND wallet_id = $3 AND status IN (${sqlStatusList(DEPOSIT_MOVES.sweepDust.from)})`,
            [depositId, sweep.sweptDepositIds, carrier.walletId],
          );
          if (rowCount !== sweep.sweptDepositIds.length) throw new SweptMeanwhile();
        }
        await insertPayoutLegs(client, depositId, legs);
        return true;
      });
    } catch (error) {
      if (error instanceof SweptMeanwhile) return false;
      throw error;
    }
  }

  /** The held dust of one wallet on a chain, oldest first. */
  async heldDust(chainId: number, walletId: string): Promise<HeldDeposit[]> {
    const { rows } = await this.pool.query<{ id: string; amount: string }>({
      name: 'settlement-held-dust',
      text: `SELECT id::text AS id, amount::text AS amount FROM deposits
             WHERE chain_id = $1 AND wallet_id = $2 AND status = 'held' ORDER BY id`,
      values: [chainId, walletId],
    });
    return rows.map((row) => ({ id: row.id, amount: BigInt(row.amount) }));
  }

  /** Wallets holding dust on a chain (only the one with this temporary address, when given), with their held deposits. */
  async walletsWithHeldDust(chainId: number, temporaryAddress?: string): Promise<WalletHeldDust[]> {
    const { rows } = await this.pool.query<{ walletId: string; temporaryAddress: string; id: string; amount: string }>({
      name: 'settlement-wallets-with-held-dust',
      text: `SELECT w.id::text AS "walletId", w.polygon_address AS "temporaryAddress", d.id::text AS id, d.amount::text AS amount
             FROM deposits d JOIN wallets w ON w.id = d.wallet_id
             WHERE d.chain_id = $1 AND d.status = 'held' AND ($2::text IS NULL OR w.polygon_address = $2)
             ORDER BY w.id, d.id`,
      values: [chainId, temporaryAddress?.toLowerCase() ?? null],
    });
    const wallets = new Map<string, WalletHeldDust>();
    for (const row of rows) {
      let wallet = wallets.get(row.walletId);
      if (!wallet) {
        wallet = { walletId: row.walletId, temporaryAddress: row.temporaryAddress, held: [] };
        wallets.set(row.walletId, wallet);
      }
      wallet.held.push({ id: row.id, amount: BigInt(row.amount) });
    }
    return [...wallets.values()];
  }

  /**
   * forwarding → forwarded and the callback delivery written, in one transaction. Returns the
   * deposit's delivery: the new one, with the order's figures it was written with, or the existing
   * one if the deposit was already forwarded; undefined if the deposit is in neither state.
   */
  async completeForwarding(delivery: NewCallbackDelivery): Promise<ForwardedDelivery | undefined> {
    return inTransaction(this.pool, async (client) => {
      const forwarded = await client.query<{ finalForSeconds: number | null }>(
        `UPDATE deposits SET status = 'forwarded', forwarded_at = now()
         WHERE id = $1 AND status IN (${sqlStatusList(DEPOSIT_MOVES.completeForwarding.from)})
         RETURNING extract(epoch FROM now() - final_at)::float8 AS "finalForSeconds"`,
        [delivery.depositId],
      );
      if (forwarded.rowCount === 1) {
        // The order as it stands with this deposit counted: the figures every attempt of this callback carries.
        const facts = await readOrderFacts(client, delivery.walletId);
        if (!facts) throw new Error(`deposit ${delivery.depositId} forwarded for a wallet that does not exist`);
        const order: ForwardedOrder = { ...orderStanding(facts), provider: facts.attempt?.provider };
        const id = await insertCallbackDelivery(client, delivery, order);
        return { id, status: 'pending', finalForSeconds: forwarded.rows[0]!.finalForSeconds, order };
      }
      const { rows } = await client.query<ForwardedDelivery>(
        `SELECT c.id::text AS id, c.status, NULL::float8 AS "finalForSeconds"
         FROM callback_deliveries c JOIN deposits d ON d.id = c.deposit_id
         WHERE d.id = $1 AND d.status = 'forwarded'`,
        [delivery.depositId],
      );
      return rows[0];
    });
  }

  /**
   * forwarding → needs_attention, with the reason of the leg that holds it back (legHoldsDepositBack) and
   * the token's words. False if the deposit was not forwarding any more.
   */
  async needAttention(depositId: string, reason: NeedsAttentionReason, detail: string | null): Promise<boolean> {
    const { rowCount } = await this.pool.query({
      name: 'settlement-need-attention',
      text: `UPDATE deposits SET status = 'needs_attention', attention_reason = $2, attention_detail = $3, attention_at = now()
             WHERE id = $1 AND status IN (${sqlStatusList(DEPOSIT_MOVES.needAttention.from)})`,
      values: [depositId, reason, detail],
    });
    return rowCount === 1;
  }

  /**
   * A re-plan, in one transaction: the unpaid legs of the earlier plan → cancelled (their
   * authorizations are cancelled on chain, or were never signed), the new legs written, and the
   * deposit back to forwarding with its reason cleared (a forwarded deposit, re-planned for a fee
   * or affiliate leg, stays forwarded). False, with nothing written, when a leg or the deposit
   * left the status the re-plan was prepared from.
   */
  async replan(depositId: string, cancelledLegIds: readonly string[], legs: readonly NewPayoutLeg[]): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const deposit = await client.query<{ status: DepositStatus }>(`SELECT status FROM deposits WHERE id = $1 FOR UPDATE`, [depositId]);
      const status = deposit.rows[0]?.status;
      if (status !== 'forwarded' && !DEPOSIT_MOVES.replan.from.some((from) => from === status)) return false;
      const cancelled = await client.query(
        `UPDATE payouts SET status = 'cancelled', cancelled_at = now()
         WHERE deposit_id = $1 AND id = ANY($2::bigint[]) AND status IN (${sqlStatusList(PAYOUT_LEG_MOVES.cancel.from)})`,
        [depositId, cancelledLegIds],
      );
      if (cancelled.rowCount !== cancelledLegIds.length) throw new ReplanRaced();
      await insertPayoutLegs(client, depositId, legs);
      if (status !== 'forwarded') {
        await client.query(
          `UPDATE deposits SET status = 'forwarding', attention_reason = NULL, attention_detail = NULL, attention_at = NULL
           WHERE id = $1 AND status IN (${sqlStatusList(DEPOSIT_MOVES.replan.from)})`,
          [depositId],
        );
      }
      return true;
    }).catch((error: unknown) => {
      if (error instanceof ReplanRaced) return false;
      throw error;
    });
  }

  /**
   * Deposits waiting for a person, oldest first: needs_attention, or forwarded with a fee or
   * affiliate leg in needs_attention (the merchant was paid and called back), each with its legs.
   */
  async listNeedingAttention(chainId: number): Promise<DepositNeedingAttention[]> {
    const { rows } = await this.pool.query<RawDepositNeedingAttention>({
      name: 'settlement-needing-attention',
      text: `SELECT d.id::text AS "depositId", d.status, d.amount::text AS amount, d.tx_hash AS "txHash",
                    d.attention_reason AS reason, d.attention_detail AS detail,
                    coalesce(d.attention_at, (SELECT min(p.attention_at) FROM payouts p
                                              WHERE p.deposit_id = d.id AND p.status = 'needs_attention')) AS since,
                    w.polygon_address AS "temporaryAddress", w.payout_address AS "payoutAddress",
                    (SELECT json_agg(json_build_object('id', p.id::text, 'leg', p.leg, 'status', p.status, 'toAddress', p.to_address,
                                                       'amount', p.amount::text, 'reason', p.attention_reason, 'detail', p.attention_detail)
                                     ORDER BY p.id)
                     FROM payouts p WHERE p.deposit_id = d.id AND p.status <> 'cancelled') AS legs
             FROM deposits d JOIN wallets w ON w.id = d.wallet_id
             WHERE d.chain_id = $1
               AND (d.status = 'needs_attention'
                    OR (d.status = 'forwarded'
                        AND EXISTS (SELECT 1 FROM payouts p WHERE p.deposit_id = d.id AND p.status = 'needs_attention')))
             ORDER BY d.id`,
      values: [chainId],
    });
    return rows.map((row) => ({
      ...row,
      amount: BigInt(row.amount),
      legs: (row.legs ?? []).map((leg) => ({ ...leg, amount: BigInt(leg.amount) })),
    }));
  }

  async findCallbackDelivery(depositId: string): Promise<CallbackDeliveryRef | undefined> {
    const { rows } = await this.pool.query<CallbackDeliveryRef>({
      name: 'settlement-callback-delivery',
      text: `SELECT id::text AS id, status FROM callback_deliveries WHERE deposit_id = $1`,
      values: [depositId],
    });
    return rows[0];
  }

  /**
   * One page of the deposits settlement still owes work on, by id after `afterId`: final or
   * forwarding, or forwarded with a leg still unpaid (a fee or affiliate leg confirmed after the
   * merchant's; a leg that needs a person waits for one instead). The reconciler pages through
   * all of them with the last id of each page.
   */
  async listUnsettled(chainId: number, afterId: string, limit: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>({
      name: 'settlement-unsettled',
      text: `SELECT id::text AS id FROM (
               (SELECT id FROM deposits WHERE chain_id = $1 AND status IN (${sqlStatusList(DEPOSIT_STATUSES_OWING_SETTLEMENT)}) AND id > $2
                ORDER BY id LIMIT $3)
               UNION
               (SELECT DISTINCT p.deposit_id FROM payouts p JOIN deposits d ON d.id = p.deposit_id
                WHERE p.status IN (${sqlStatusList(PAYOUT_LEG_STATUSES_UNPAID)}) AND p.deposit_id > $2
                  AND d.status = 'forwarded' AND d.chain_id = $1
                ORDER BY p.deposit_id LIMIT $3)
             ) owing ORDER BY id LIMIT $3`,
      values: [chainId, afterId, limit],
    });
    return rows.map((row) => row.id);
  }

  /**
   * The settlement backlog gauges, one index scan each (deposits_owing_settlement_since_idx,
   * deposits_held_idx, deposits_needs_attention_idx, deposits_held_for_operator_idx): each covers
   * only deposits still open.
   */
  async backlog(chainId: number): Promise<SettlementBacklog> {
    const [owing, held, attention, heldForOperator] = await Promise.all([
      this.pool.query<{ seconds: number | null }>({
        name: 'settlement-oldest-owing',
        text: `SELECT extract(epoch FROM now() - min(final_at))::float8 AS seconds FROM deposits
               WHERE chain_id = $1 AND status IN (${sqlStatusList(DEPOSIT_STATUSES_OWING_SETTLEMENT)})`,
        values: [chainId],
      }),
      this.pool.query<{ count: number; amount: string }>({
        name: 'settlement-held-dust-total',
        text:
          `SELECT count(*)::int AS count, coalesce(sum(amount), 0)::text AS amount FROM deposits WHERE chain_id = $1 AND status ` +
          `= 'held'`,
        values: [chainId],
      }),
      this.pool.query<{ count: number }>({
        name: 'settlement-needing-attention-count',
        text: `SELECT count(*)::int AS count FROM deposits WHERE status = 'needs_attention' AND chain_id = $1`,
        values: [chainId],
      }),
      this.pool.query<{ count: number; amount: string }>({
        name: 'settlement-held-for-operator-total',
        text: `SELECT count(*)::int AS count, coalesce(sum(amount), 0)::text AS amount FROM deposits
               WHERE chain_id = $1 AND status = '${DEPOSIT_MOVES.holdOtherToken.to}'`,
        values: [chainId],
      }),
    ]);
    return {
      oldestOwingSeconds: Math.max(0, owing.rows[0]?.seconds ?? 0),
      heldDeposits: held.rows[0]?.count ?? 0,
      heldAmount: BigInt(held.rows[0]?.amount ?? '0'),
      needingAttention: attention.rows[0]?.count ?? 0,
      heldForOperator: heldForOperator.rows[0]?.count ?? 0,
      heldForOperatorAmount: BigInt(heldForOperator.rows[0]?.amount ?? '0'),
    };
  }
}
