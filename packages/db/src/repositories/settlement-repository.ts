import type { Pool } from 'pg';
import { inTransaction } from '../in-transaction';
import { insertCallbackDelivery, type NewCallbackDelivery } from './callback-delivery-writer';
import { insertPayoutLegs, type NewPayoutLeg } from './payout-repository';

export type DepositSettlementStatus = 'seen' | 'final' | 'held' | 'forwarding' | 'forwarded' | 'orphaned';

/** A deposit with what settlement needs of its wallet. */
export interface SettlementDeposit {
  id: string;
  chainId: number;
  txHash: string;
  blockNumber: bigint;
  amount: bigint;
  status: DepositSettlementStatus;
  walletId: string;
  hdIndex: bigint;
  /** The temporary wallet (lower-case hex). */
  temporaryAddress: string;
  payoutAddress: string;
  affiliateAddress: string | null;
  affiliateFeeBps: number | null;
  /** Set only for a custom split (custom-affiliate.php): the merchant's share, fixed at creation. */
  merchantFeeBps: number | null;
}

export interface CallbackDeliveryRef {
  id: string;
  status: string;
}

/** Held while one worker settles a deposit; other workers skip the deposit until it is released. */
export interface DepositLock {
  release(): Promise<void>;
}

// Advisory locks are per database, not per schema: the key covers the schema too, so gateways
// (or test files) sharing a database in different schemas never hold each other's deposits. A
// 64-bit hash collision between two deposits would only make one wait for the other.
const DEPOSIT_LOCK_KEY = `hashtextextended(current_schema() || '/settlement-deposit/' || $1::text, 0)`;

/**
 * The deposit side of settlement: each step is one guarded status transition (WHERE status = ...),
 * so two workers can never both plan a deposit or both mark it forwarded.
 */
export class SettlementRepository {
  constructor(private readonly pool: Pool) {}

  async findDeposit(depositId: string): Promise<SettlementDeposit | undefined> {
    const { rows } = await this.pool.query<
      Omit<SettlementDeposit, 'blockNumber' | 'amount' | 'hdIndex'> & { blockNumber: string; amount: string; hdIndex: string }
    >({
      name: 'settlement-deposit',
      text: `SELECT d.id::text AS "id", d.chain_id AS "chainId", d.tx_hash AS "txHash", d.block_number::text AS "blockNumber",
                    d.amount::text AS amount, d.status, w.id::text AS "walletId", w.hd_index::text AS "hdIndex",
                    w.polygon_address AS "temporaryAddress", w.payout_address AS "payoutAddress",
                    w.affiliate_address AS "affiliateAddress", w.affiliate_fee_bps AS "affiliateFeeBps",
                    w.merchant_fee_bps AS "merchantFeeBps"
             FROM deposits d JOIN wallets w ON w.id = d.wallet_id WHERE d.id = $1`,
      values: [depositId],
    });
    const row = rows[0];
    if (!row) return undefined;
    return { ...row, blockNumber: BigInt(row.blockNumber), amount: BigInt(row.amount), hdIndex: BigInt(row.hdIndex) };
  }

  /**
   * Session-level advisory lock on the deposit, on a connection of its own held until release.
   * If the worker dies, PostgreSQL drops the connection and the lock with it. Undefined when
   * another worker holds it.
   */
  async tryLockDeposit(depositId: string): Promise<DepositLock | undefined> {
    const client = await this.pool.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${DEPOSIT_LOCK_KEY}) AS locked`, [depositId]);
      if (!rows[0]?.locked) {
        client.release();
        return undefined;
      }
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    let released = false;
    return {
      async release() {
        if (released) return;
        released = true;
        try {
          await client.query(`SELECT pg_advisory_unlock(${DEPOSIT_LOCK_KEY})`, [depositId]);
          client.release();
        } catch (error) {
          // Destroying the connection releases the lock too.
          client.release(error as Error);
        }
      },
    };
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
   * final → forwarding, and the legs written, in one transaction, before anything is signed.
   * False (and nothing written) if the deposit was no longer final: someone else planned it.
   */
  async startForwarding(depositId: string, legs: readonly NewPayoutLeg[]): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const { rowCount } = await client.query(`UPDATE deposits SET status = 'forwarding' WHERE id = $1 AND status = 'final'`, [
        depositId,
      ]);
      if (rowCount !== 1) return false;
      await insertPayoutLegs(client, depositId, legs);
      return true;
    });
  }

  /**
   * forwarding → forwarded and the callback delivery written, in one transaction. Returns the
   * deposit's delivery: the new one, or the existing one if the deposit was already forwarded;
   * undefined if the deposit is in neither state.
   */
  async completeForwarding(delivery: NewCallbackDelivery): Promise<CallbackDeliveryRef | undefined> {
    return inTransaction(this.pool, async (client) => {
      const { rowCount } = await client.query(
        `UPDATE deposits SET status = 'forwarded', forwarded_at = now() WHERE id = $1 AND status = 'forwarding'`,
        [delivery.depositId],
      );
      if (rowCount === 1) {
        const id = await insertCallbackDelivery(client, delivery);
        return { id, status: 'pending' };
      }
      const { rows } = await client.query<CallbackDeliveryRef>(
        `SELECT c.id::text AS id, c.status FROM callback_deliveries c JOIN deposits d ON d.id = c.deposit_id
         WHERE d.id = $1 AND d.status = 'forwarded'`,
        [delivery.depositId],
      );
      return rows[0];
    });
  }

  async findCallbackDelivery(depositId: string): Promise<CallbackDeliveryRef | undefined> {
    const { rows } = await this.pool.query<CallbackDeliveryRef>({
      name: 'settlement-callback-delivery',
      text: `SELECT id::text AS id, status FROM callback_deliveries WHERE deposit_id = $1`,
      values: [depositId],
    });
    return rows[0];
  }

  /** Deposits settlement still owes work on (final or forwarding), oldest first. */
  async listUnsettled(chainId: number, limit: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>({
      name: 'settlement-unsettled',
      text: `SELECT id::text AS id FROM deposits WHERE chain_id = $1 AND status IN ('final', 'forwarding') ORDER BY deposits.id LIMIT $2`,
      values: [chainId, limit],
    });
    return rows.map((row) => row.id);
  }
}
