import type { Pool, PoolClient } from 'pg';
import {
  ACTIVE_PAYOUT_LEG_STATUSES,
  PAYOUT_LEG_MOVES,
  PAYOUT_LEG_STATUSES_UNPAID,
  PAYOUT_TRANSACTION_MOVES,
  sqlStatusList,
  type NeedsAttentionReason,
  type PayoutLegKind,
  type PayoutLegStatus,
  type PayoutTransactionStatus,
} from '@gateway/domain';
import { inTransaction } from '../in-transaction';

/** cancel: carries cancelAuthorization of the leg's nonce, when the leg is re-planned. */
export type PayoutTransactionReason = 'initial' | 'fee-bump' | 're-signed' | 'new-nonce' | 'cancel';

/** A leg as planned, before anything is signed. */
export interface NewPayoutLeg {
  leg: PayoutLegKind;
  fromAddress: string;
  toAddress: string;
  amount: bigint;
  authorizationNonce: string;
  validBefore: bigint;
  /** A re-plan: the cancelled leg of the earlier plan this one takes over from. */
  replacesPayoutId?: string;
}

export interface PayoutLegRow {
  id: string;
  depositId: string;
  leg: PayoutLegKind;
  fromAddress: string;
  toAddress: string;
  amount: bigint;
  authorizationNonce: string;
  validAfter: bigint;
  validBefore: bigint;
  signature: string | null;
  status: PayoutLegStatus;
  txHash: string | null;
  blockNumber: bigint | null;
  attentionReason: NeedsAttentionReason | null;
  /** The token's revert reason behind attentionReason. */
  attentionDetail: string | null;
}

/** A relayer transaction signed for a leg, everything needed to send it again. */
export interface SignedRelayerTransaction {
  txHash: string;
  rawTx: string;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface PayoutTransactionRow extends SignedRelayerTransaction {
  id: string;
  payoutId: string;
  chainId: number;
  relayerAddress: string;
  relayerNonce: bigint;
  reason: PayoutTransactionReason;
  status: PayoutTransactionStatus;
  createdAt: Date;
  sentAt: Date | null;
}

export interface NewNonceTransaction {
  payoutId: string;
  chainId: number;
  relayerAddress: string;
  reason: PayoutTransactionReason;
  /** The relayer's pending transaction count on chain; read under the nonce lock. */
  readPendingNonce: () => Promise<bigint>;
  /** Signs the relayer transaction with the allocated nonce. Must not broadcast it. */
  sign: (relayerNonce: bigint) => Promise<SignedRelayerTransaction>;
}

export interface Replacement {
  payoutId: string;
  chainId: number;
  relayerAddress: string;
  relayerNonce: bigint;
  reason: PayoutTransactionReason;
  signed: SignedRelayerTransaction;
}

type Numeric = string;

interface RawLeg extends Omit<PayoutLegRow, 'amount' | 'validAfter' | 'validBefore' | 'blockNumber'> {
  amount: Numeric;
  validAfter: Numeric;
  validBefore: Numeric;
  blockNumber: Numeric | null;
}

interface RawTransaction extends Omit<PayoutTransactionRow, 'relayerNonce' | 'gasLimit' | 'maxFeePerGas' | 'maxPriorityFeePerGas'> {
  relayerNonce: Numeric;
  gasLimit: Numeric;
  maxFeePerGas: Numeric;
  maxPriorityFeePerGas: Numeric;
}

const LEG_COLUMNS = `id::text AS "id", deposit_id::text AS "depositId", leg, from_address AS "fromAddress",
  to_address AS "toAddress", amount::text AS amount, authorization_nonce AS "authorizationNonce",
  valid_after::text AS "validAfter", valid_before::text AS "validBefore", signature, status,
  tx_hash AS "txHash", block_number::text AS "blockNumber", attention_reason AS "attentionReason",
  attention_detail AS "attentionDetail"`;

const TRANSACTION_COLUMNS = `id::text AS "id", payout_id::text AS "payoutId", chain_id AS "chainId",
  relayer_address AS "relayerAddress", relayer_nonce::text AS "relayerNonce", tx_hash AS "txHash", raw_tx AS "rawTx",
  gas_limit::text AS "gasLimit", max_fee_per_gas::text AS "maxFeePerGas",
  max_priority_fee_per_gas::text AS "maxPriorityFeePerGas", reason, status, created_at AS "createdAt", sent_at AS "sentAt"`;

function toLeg(row: RawLeg): PayoutLegRow {
  return {
    ...row,
    amount: BigInt(row.amount),
    validAfter: BigInt(row.validAfter),
    validBefore: BigInt(row.validBefore),
    blockNumber: row.blockNumber === null ? null : BigInt(row.blockNumber),
  };
}

function toTransaction(row: RawTransaction): PayoutTransactionRow {
  return {
    ...row,
    relayerNonce: BigInt(row.relayerNonce),
    gasLimit: BigInt(row.gasLimit),
    maxFeePerGas: BigInt(row.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(row.maxPriorityFeePerGas),
  };
}

/** Inserts planned legs inside the caller's transaction (the one that moves the deposit to forwarding). */
export async function insertPayoutLegs(client: PoolClient, depositId: string, legs: readonly NewPayoutLeg[]): Promise<void> {
  if (legs.length === 0) return;
  await client.query({
    text: `INSERT INTO payouts (deposit_id, leg, from_address, to_address, amount, authorization_nonce, valid_before, replaces_payout_id)
           SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::numeric[], $6::text[], $7::numeric[], $8::bigint[])`,
    values: [
      depositId,
      legs.map((l) => l.leg),
      legs.map((l) => l.fromAddress.toLowerCase()),
      legs.map((l) => l.toAddress.toLowerCase()),
      legs.map((l) => l.amount.toString()),
      legs.map((l) => l.authorizationNonce.toLowerCase()),
      legs.map((l) => l.validBefore.toString()),
      legs.map((l) => l.replacesPayoutId ?? null),
    ],
  });
}

async function insertTransaction(
  client: Pool | PoolClient,
  tx: Omit<Replacement, 'signed'> & SignedRelayerTransaction,
): Promise<PayoutTransactionRow> {
  const { rows } = await client.query<RawTransaction>({
    text: `INSERT INTO payout_transactions (payout_id, chain_id, relayer_address, relayer_nonce, tx_hash, raw_tx, gas_limit,
             max_fee_per_gas, max_priority_fee_per_gas, reason)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
           RETURNING ${TRANSACTION_COLUMNS}`,
    values: [
      tx.payoutId,
      tx.chainId,
      tx.relayerAddress.toLowerCase(),
      tx.relayerNonce.toString(),
      tx.txHash.toLowerCase(),
      tx.rawTx.toLowerCase(),
      tx.gasLimit.toString(),
      tx.maxFeePerGas.toString(),
      tx.maxPriorityFeePerGas.toString(),
      tx.reason,
    ],
  });
  // A cancellation is recorded against the leg it cancels, which it does not move.
  if (tx.reason !== 'cancel') {
    await client.query(
      `UPDATE payouts SET status = 'broadcast' WHERE id = $1 AND status IN (${sqlStatusList(PAYOUT_LEG_MOVES.broadcast.from)})`,
      [tx.payoutId],
    );
  }
  const row = rows[0];
  if (!row) throw new Error('payout transaction insert returned nothing');
  return toTransaction(row);
}

/**
 * The legs of each deposit and every relayer transaction signed for them. A transaction is
 * recorded here before it is broadcast, so whoever resumes a payout can see, and send again,
 * anything that may have reached the chain.
 */
export class PayoutRepository {
  constructor(private readonly pool: Pool) {}

  /** The deposit's current plan: its active legs (cancelled legs of an earlier plan are left out). */
  async listLegs(depositId: string): Promise<PayoutLegRow[]> {
    const { rows } = await this.pool.query<RawLeg>({
      name: 'payout-legs-of-deposit',
      text: `SELECT ${LEG_COLUMNS} FROM payouts WHERE deposit_id = $1 AND status IN (${sqlStatusList(ACTIVE_PAYOUT_LEG_STATUSES)})
             ORDER BY payouts.id`,
      values: [depositId],
    });
    return rows.map(toLeg);
  }

  /** Oldest first; the last one is the leg's current transaction. */
  async listTransactions(payoutId: string): Promise<PayoutTransactionRow[]> {
    const { rows } = await this.pool.query<RawTransaction>({
      name: 'payout-transactions-of-leg',
      text: `SELECT ${TRANSACTION_COLUMNS} FROM payout_transactions WHERE payout_id = $1 ORDER BY payout_transactions.id`,
      values: [payoutId],
    });
    return rows.map(toTransaction);
  }

  /** Stores the temporary wallet's signature (the first one, or a renewal with a later validBefore). */
  async saveSignature(payoutId: string, validBefore: bigint, signature: string): Promise<void> {
    await this.pool.query({
      name: 'payout-save-signature',
      text: `UPDATE payouts SET signature = $3, valid_before = $2,
               status = CASE WHEN status IN (${sqlStatusList(PAYOUT_LEG_MOVES.sign.from)}) THEN 'signed' ELSE status END
             WHERE id = $1 AND status IN (${sqlStatusList(PAYOUT_LEG_STATUSES_UNPAID)})`,
      values: [payoutId, validBefore.toString(), signature.toLowerCase()],
    });
  }

  /**
   * Allocates the relayer's next nonce and records the transaction signed with it, in one
   * database transaction: a nonce is never handed out without its transaction being recorded.
   * The relayer_nonces row lock serializes allocation across every worker process; the nonce is
   * the larger of our counter and the chain's pending count, so transactions sent by anyone
   * else from the relayer account (an operator, another tool) are stepped over, not collided with.
   */
  async recordWithNewNonce(request: NewNonceTransaction): Promise<PayoutTransactionRow> {
    const relayer = request.relayerAddress.toLowerCase();
    return inTransaction(this.pool, async (client) => {
      await client.query(`INSERT INTO relayer_nonces (chain_id, relayer_address, next_nonce) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING`, [
        request.chainId,
        relayer,
      ]);
      const { rows } = await client.query<{ next: Numeric }>(
        `SELECT next_nonce::text AS next FROM relayer_nonces WHERE chain_id = $1 AND relayer_address = $2 FOR UPDATE`,
        [request.chainId, relayer],
      );
      const counter = BigInt(rows[0]?.next ?? '0');
      const pending = await request.readPendingNonce();
      const relayerNonce = pending > counter ? pending : counter;
      const signed = await request.sign(relayerNonce);
      const row = await insertTransaction(client, { ...request, relayerAddress: relayer, relayerNonce, ...signed });
      await client.query(`UPDATE relayer_nonces SET next_nonce = $3, updated_at = now() WHERE chain_id = $1 AND relayer_address = $2`, [
        request.chainId,
        relayer,
        (relayerNonce + 1n).toString(),
      ]);
      return row;
    });
  }

  /** Records a transaction that reuses a nonce this leg already holds (fee bump, renewed authorization). */
  async recordReplacement(replacement: Replacement): Promise<PayoutTransactionRow> {
    return insertTransaction(this.pool, { ...replacement, ...replacement.signed });
  }

  /**
   * Moves a transaction to `status` only from a status the state machine allows, so an answer
   * that arrives late (a broadcast returning after the receipt was read) never undoes a later one.
   */
  async markTransaction(transactionId: string, status: PayoutTransactionStatus): Promise<void> {
    const from = Object.values(PAYOUT_TRANSACTION_MOVES).flatMap((move) => (move.to === status ? move.from : []));
    await this.pool.query({
      name: 'payout-transaction-status',
      text: `UPDATE payout_transactions SET status = $2,
               sent_at = CASE WHEN $2 = 'sent' THEN coalesce(sent_at, now()) ELSE sent_at END
             WHERE id = $1 AND status = ANY($3::text[])`,
      values: [transactionId, status, from],
    });
  }

  /**
   * A leg the token will refuse however often it is sent: needs_attention, with the reason and the
   * token's own words. False when the leg had already left the statuses settlement drives.
   */
  async markLegNeedsAttention(payoutId: string, reason: NeedsAttentionReason, detail: string): Promise<boolean> {
    const { rowCount } = await this.pool.query({
      name: 'payout-leg-needs-attention',
      text: `UPDATE payouts SET status = 'needs_attention', attention_reason = $2, attention_detail = $3, attention_at = now()
             WHERE id = $1 AND status IN (${sqlStatusList(PAYOUT_LEG_MOVES.needAttention.from)})`,
      values: [payoutId, reason, detail],
    });
    return rowCount === 1;
  }

  /** The leg is paid by `txHash` (ours or, if someone relayed our signature first, theirs). */
  async confirmLeg(payoutId: string, txHash: string, blockNumber: bigint): Promise<void> {
    const hash = txHash.toLowerCase();
    await inTransaction(this.pool, async (client) => {
      await client.query(
        `UPDATE payouts SET status = 'confirmed', tx_hash = $2, block_number = $3, confirmed_at = now()
         WHERE id = $1 AND status IN (${sqlStatusList(PAYOUT_LEG_MOVES.confirm.from)})`,
        [payoutId, hash, blockNumber.toString()],
      );
      await client.query(
        `UPDATE payout_transactions SET status = CASE WHEN tx_hash = $2 THEN 'mined' ELSE 'replaced' END
         WHERE payout_id = $1 AND status IN ('recorded', 'sent')`,
        [payoutId, hash],
      );
    });
  }
}
