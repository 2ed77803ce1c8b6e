import type { Pool } from 'pg';
import { DEPOSIT_MOVES, sqlStatusList, type DepositStatus } from '@gateway/domain';
import { inTransaction } from '../in-transaction';

/** A deposit as a payout by hand is checked against: its own figures and its wallet's terms. */
export interface HandPayoutCandidate {
  depositId: string;
  status: DepositStatus;
  chainId: number;
  /** The deposit's token contract (lower-case); null only in rows no app wrote. */
  token: string | null;
  amount: bigint;
  /** The transfer that brought it in. */
  txHash: string;
  temporaryAddress: string;
  hdIndex: bigint;
  payoutAddress: string;
  platformFeeBps: number;
  affiliateFeeBps: number | null;
  heldAt: Date | null;
}

/** The Transfer log that paid a held deposit out by hand, as read on chain. */
export interface OperatorPayout {
  chainId: number;
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
  token: string;
  fromAddress: string;
  toAddress: string;
  amount: bigint;
  paid: 'merchant_share' | 'whole_deposit';
}

/** What recording a payout by hand came to: recorded, or why nothing was written. */
export type OperatorPayoutRecording =
  | { result: 'recorded' }
  | { result: 'not_held'; status: DepositStatus | undefined }
  | { result: 'transfer_taken'; depositId: string };

type RawCandidate = Omit<HandPayoutCandidate, 'amount' | 'hdIndex'> & { amount: string; hdIndex: string };

const CANDIDATE_COLUMNS = `d.id::text AS "depositId", d.status, d.chain_id AS "chainId", d.token, d.amount::text AS amount,
  d.tx_hash AS "txHash", w.polygon_address AS "temporaryAddress", w.hd_index::text AS "hdIndex", w.payout_address AS "payoutAddress",
  w.platform_fee_bps AS "platformFeeBps", w.affiliate_fee_bps AS "affiliateFeeBps", d.held_at AS "heldAt"`;

const candidate = (row: RawCandidate): HandPayoutCandidate => ({ ...row, amount: BigInt(row.amount), hdIndex: BigInt(row.hdIndex) });

/**
 * Deposits the operator pays out by hand (`gateway deposits paid-by-hand`, with the settlement worker's
 * role): those held for the operator, and the record of the transfer that paid one, written with its
 * move to paid_by_operator so settlement never plans it and the held gauges stop counting it.
 */
export class OperatorPayoutRepository {
  constructor(private readonly pool: Pool) {}

  /** Every deposit held for the operator on the chain, oldest first. */
  async listHeld(chainId: number): Promise<HandPayoutCandidate[]> {
    const { rows } = await this.pool.query<RawCandidate>({
      name: 'operator-payout-held',
      text: `SELECT ${CANDIDATE_COLUMNS} FROM deposits d JOIN wallets w ON w.id = d.wallet_id
             WHERE d.chain_id = $1 AND d.status IN (${sqlStatusList(DEPOSIT_MOVES.recordOperatorPayout.from)})
             ORDER BY d.held_at, d.id`,
      values: [chainId],
    });
    return rows.map(candidate);
  }

  /** One deposit, whatever its status (undefined when there is none). */
  async find(depositId: string): Promise<HandPayoutCandidate | undefined> {
    const { rows } = await this.pool.query<RawCandidate>({
      name: 'operator-payout-deposit',
      text: `SELECT ${CANDIDATE_COLUMNS} FROM deposits d JOIN wallets w ON w.id = d.wallet_id WHERE d.id = $1`,
      values: [depositId],
    });
    return rows[0] && candidate(rows[0]);
  }

  /**
   * held_for_operator → paid_by_operator with the transfer that paid it, in one transaction. Nothing is
   * written when the deposit is no longer held (recorded meanwhile), or the transfer already paid another.
   */
  async record(depositId: string, payout: OperatorPayout): Promise<OperatorPayoutRecording> {
    return inTransaction<OperatorPayoutRecording>(this.pool, async (client) => {
      const moved = await client.query(
        `UPDATE deposits SET status = '${DEPOSIT_MOVES.recordOperatorPayout.to}'
         WHERE id = $1 AND status IN (${sqlStatusList(DEPOSIT_MOVES.recordOperatorPayout.from)})`,
        [depositId],
      );
      if (moved.rowCount !== 1) {
        const { rows } = await client.query<{ status: DepositStatus }>('SELECT status FROM deposits WHERE id = $1', [depositId]);
        return { result: 'not_held', status: rows[0]?.status };
      }
      const inserted = await client.query(
        `INSERT INTO operator_payouts (deposit_id, chain_id, tx_hash, log_index, block_number, block_hash, token, from_address,
           to_address, amount, paid)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (chain_id, tx_hash, log_index) DO NOTHING`,
        [
          depositId,
          payout.chainId,
          payout.txHash.toLowerCase(),
          payout.logIndex,
          payout.blockNumber.toString(),
          payout.blockHash.toLowerCase(),
          payout.token.toLowerCase(),
          payout.fromAddress.toLowerCase(),
          payout.toAddress.toLowerCase(),
          payout.amount.toString(),
          payout.paid,
        ],
      );
      if (inserted.rowCount === 1) return { result: 'recorded' };
      const { rows } = await client.query<{ depositId: string }>(
        `SELECT deposit_id::text AS "depositId" FROM operator_payouts WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3`,
        [payout.chainId, payout.txHash.toLowerCase(), payout.logIndex],
      );
      // The deposit's move is undone with the rest: this transfer paid another deposit.
      throw new TransferTaken(rows[0]?.depositId ?? '?');
    }).catch((error: unknown) => {
      if (error instanceof TransferTaken) return { result: 'transfer_taken' as const, depositId: error.depositId };
      throw error;
    });
  }
}

class TransferTaken extends Error {
  constructor(readonly depositId: string) {
    super(`the transfer already paid deposit ${depositId}`);
  }
}
