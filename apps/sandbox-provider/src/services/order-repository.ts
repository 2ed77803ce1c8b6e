import type { Pool } from 'pg';
import type { Hash, Hex } from 'viem';

export type SandboxOrderStatus = 'paying' | 'paid';

export interface SandboxOrderRow {
  paymentId: string;
  provider: string;
  walletAddress: string;
  /** Base units, as PostgreSQL returns numeric: a decimal string. */
  usdcAmount: string;
  status: SandboxOrderStatus;
  /** The signed transfer, stored before it is broadcast; null until signed. */
  rawTx: Hex | null;
  txHash: Hash | null;
}

export interface NewSandboxOrder {
  paymentId: string;
  provider: string;
  walletAddress: string;
  fiatAmount: string;
  currency: string;
  usdcAmount: bigint;
}

// The sandbox is not part of the gateway's schema (packages/db migrations): it keeps its own
// table, created at boot. Both checks keep a signed transaction and its state consistent.
const CREATE_TABLE = `
  CREATE TABLE IF NOT EXISTS sandbox_orders (
    payment_id uuid PRIMARY KEY,
    provider text NOT NULL,
    wallet_address text NOT NULL,
    fiat_amount numeric(20, 2) NOT NULL,
    fiat_currency text NOT NULL,
    usdc_amount numeric(78, 0) NOT NULL CHECK (usdc_amount > 0),
    status text NOT NULL DEFAULT 'paying' CHECK (status IN ('paying', 'paid')),
    tx_hash text,
    raw_tx text,
    created_at timestamptz NOT NULL DEFAULT now(),
    paid_at timestamptz,
    CHECK ((tx_hash IS NULL) = (raw_tx IS NULL)),
    CHECK (status = 'paying' OR (tx_hash IS NOT NULL AND paid_at IS NOT NULL))
  );
  CREATE INDEX IF NOT EXISTS sandbox_orders_paying ON sandbox_orders (created_at) WHERE status = 'paying'`;

const COLUMNS = `payment_id AS "paymentId", provider, wallet_address AS "walletAddress", usdc_amount::text AS "usdcAmount",
  status, raw_tx AS "rawTx", tx_hash AS "txHash"`;

/** The sandbox's orders: one row per gateway payment it has accepted a card for. */
export class SandboxOrderRepository {
  constructor(private readonly pool: Pool) {}

  /** Creates the schema and table if missing; two processes booting at once take turns. */
  async ensureTable(schema: string): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("SELECT pg_advisory_xact_lock(hashtext('sandbox_orders'))");
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await client.query(CREATE_TABLE);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async find(paymentId: string): Promise<SandboxOrderRow | undefined> {
    const { rows } = await this.pool.query<SandboxOrderRow>(`SELECT ${COLUMNS} FROM sandbox_orders WHERE payment_id = $1`, [paymentId]);
    return rows[0];
  }

  /** True for the one caller that created the order; a replay or a concurrent post gets false. */
  async claim(order: NewSandboxOrder): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO sandbox_orders (payment_id, provider, wallet_address, fiat_amount, fiat_currency, usdc_amount)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (payment_id) DO NOTHING`,
      [order.paymentId, order.provider, order.walletAddress, order.fiatAmount, order.currency, order.usdcAmount.toString()],
    );
    return rowCount === 1;
  }

  /**
   * Records a signed transfer before it is broadcast. It replaces `previousHash` (null: none
   * yet) only; false means someone else recorded one first, and this one must not be sent.
   */
  async recordSignedTransfer(paymentId: string, signed: { rawTx: Hex; hash: Hash }, previousHash: Hash | null): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE sandbox_orders SET raw_tx = $2, tx_hash = $3
       WHERE payment_id = $1 AND status = 'paying' AND tx_hash IS NOT DISTINCT FROM $4`,
      [paymentId, signed.rawTx, signed.hash, previousHash],
    );
    return rowCount === 1;
  }

  /** Forgets a transfer that was mined but reverted: it can never pay, so a new one may be signed. */
  async forgetRevertedTransfer(paymentId: string, hash: Hash): Promise<void> {
    await this.pool.query(
      `UPDATE sandbox_orders SET raw_tx = NULL, tx_hash = NULL WHERE payment_id = $1 AND status = 'paying' AND tx_hash = $2`,
      [paymentId, hash],
    );
  }

  /** True for the one caller that marked the order paid (it sends the webhook). */
  async markPaid(paymentId: string, hash: Hash): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE sandbox_orders SET status = 'paid', paid_at = now() WHERE payment_id = $1 AND status = 'paying' AND tx_hash = $2`,
      [paymentId, hash],
    );
    return rowCount === 1;
  }

  /** Orders with a signed transfer that was never seen mined: a crash or an outage interrupted them. */
  async unfinished(): Promise<SandboxOrderRow[]> {
    const { rows } = await this.pool.query<SandboxOrderRow>(
      `SELECT ${COLUMNS} FROM sandbox_orders WHERE status = 'paying' AND raw_tx IS NOT NULL ORDER BY created_at`,
    );
    return rows;
  }
}
