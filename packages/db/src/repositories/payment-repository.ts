import type { Pool } from 'pg';
import { canMoveProviderStatus, type DepositStatus, type ProviderPaymentStatus } from '@gateway/domain';
import { inTransaction } from '../in-transaction';

export interface NewPayment {
  id: string;
  /** Temporary wallet the payment is for, as opened from address_in. */
  polygonAddress: string;
  amount: string;
  currency: string;
  provider: string;
  email: string;
  checkoutUrl: string;
}

export class PaymentRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Records each payment against the wallet that owns its `polygonAddress`, the whole batch in
   * one statement. Returns, per payment, false when no such wallet exists (a token sealed by us
   * for a wallet since removed, or a database that does not match the keys).
   */
  async insertManyForWallets(payments: readonly NewPayment[]): Promise<boolean[]> {
    const { rows } = await this.pool.query<{ id: string }>({
      name: 'payments-insert-for-wallets',
      text: `INSERT INTO payments (id, wallet_id, amount, currency, provider, email, checkout_url)
             SELECT i.id, w.id, i.amount, i.currency, i.provider, i.email, i.checkout_url
             FROM unnest($1::uuid[], $2::text[], $3::numeric[], $4::text[], $5::text[], $6::text[], $7::text[])
               AS i(id, polygon_address, amount, currency, provider, email, checkout_url)
             JOIN wallets w ON w.polygon_address = i.polygon_address
             RETURNING id`,
      values: [
        payments.map((p) => p.id),
        payments.map((p) => p.polygonAddress.toLowerCase()),
        payments.map((p) => p.amount),
        payments.map((p) => p.currency),
        payments.map((p) => p.provider),
        payments.map((p) => p.email),
        payments.map((p) => p.checkoutUrl),
      ],
    });
    const recorded = new Set(rows.map((row) => row.id));
    return payments.map((payment) => recorded.has(payment.id));
  }
}

/** A payment as its receipt page shows it: no e-mail, payout address or ipn_token. */
export interface PaymentReceiptRecord {
  id: string;
  amount: string;
  currency: string;
  provider: string;
  createdAt: Date;
  providerStatus: ProviderPaymentStatus | null;
  providerReason: string | null;
  deposits: ReceiptDepositRecord[];
}

export interface ReceiptDepositRecord {
  status: DepositStatus;
  /** Token base units. */
  amount: bigint;
  txHash: string;
  seenAt: Date;
  /** The merchant leg's transaction, once forwarded. */
  forwardedTxHash: string | null;
  /** The merchant's callback answered 2xx. */
  merchantNotified: boolean;
}

export interface ProviderStatusUpdate {
  paymentId: string;
  provider: string;
  status: ProviderPaymentStatus;
  reference: string;
  reason?: string;
}

export type ProviderStatusOutcome = 'updated' | 'unchanged' | 'unknown_payment';

export class PaymentReceiptRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * The payment and the deposits into its wallet since it started (a wallet is one order; earlier
   * deposits belong to an earlier payment of it), oldest first, in one round trip.
   */
  async findReceipt(paymentId: string): Promise<PaymentReceiptRecord | undefined> {
    const { rows } = await this.pool.query<ReceiptRow>({
      name: 'payment-receipt',
      text: `SELECT p.id, p.amount::text AS amount, p.currency, p.provider, p.created_at, p.provider_status, p.provider_reason,
                    d.status AS deposit_status, d.amount::text AS deposit_amount, d.tx_hash, d.seen_at,
                    po.tx_hash AS forwarded_tx_hash, cd.status = 'delivered' AS merchant_notified
             FROM payments p
             LEFT JOIN deposits d ON d.wallet_id = p.wallet_id AND d.seen_at >= p.created_at
             LEFT JOIN payouts po ON po.deposit_id = d.id AND po.leg = 'merchant'
             LEFT JOIN callback_deliveries cd ON cd.deposit_id = d.id
             WHERE p.id = $1
             ORDER BY d.seen_at, d.id`,
      values: [paymentId],
    });
    const first = rows[0];
    if (!first) return undefined;
    return {
      id: first.id,
      amount: first.amount,
      currency: first.currency.trim(),
      provider: first.provider,
      createdAt: first.created_at,
      providerStatus: first.provider_status,
      providerReason: first.provider_reason,
      deposits: rows
        .filter((row) => row.deposit_status !== null)
        .map((row) => ({
          status: row.deposit_status as DepositStatus,
          amount: BigInt(row.deposit_amount ?? '0'),
          txHash: row.tx_hash ?? '',
          seenAt: row.seen_at ?? first.created_at,
          forwardedTxHash: row.forwarded_tx_hash,
          merchantNotified: row.merchant_notified === true,
        })),
    };
  }

  /**
   * Records what a provider's webhook says, when the payment exists, belongs to that provider,
   * and the domain's rule lets the status move (a late webhook never undoes `paid`).
   */
  async recordProviderStatus(update: ProviderStatusUpdate): Promise<ProviderStatusOutcome> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ provider_status: ProviderPaymentStatus | null }>(
        'SELECT provider_status FROM payments WHERE id = $1 AND provider = $2 FOR UPDATE',
        [update.paymentId, update.provider],
      );
      const current = rows[0];
      if (!current) return 'unknown_payment';
      if (!canMoveProviderStatus(current.provider_status, update.status)) return 'unchanged';
      await client.query(
        `UPDATE payments SET provider_status = $2, provider_reference = $3, provider_reason = $4, provider_updated_at = now() WHERE id = $1`,
        [update.paymentId, update.status, update.reference.slice(0, 200), update.reason?.slice(0, 200) ?? null],
      );
      return 'updated';
    });
  }
}

interface ReceiptRow {
  id: string;
  amount: string;
  currency: string;
  provider: string;
  created_at: Date;
  provider_status: ProviderPaymentStatus | null;
  provider_reason: string | null;
  deposit_status: string | null;
  deposit_amount: string | null;
  tx_hash: string | null;
  seen_at: Date | null;
  forwarded_tx_hash: string | null;
  merchant_notified: boolean | null;
}
