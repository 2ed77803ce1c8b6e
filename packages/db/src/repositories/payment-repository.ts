import type { Pool } from 'pg';

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

export interface PaymentRow {
  id: string;
  walletId: string;
  amount: string;
  currency: string;
  provider: string;
  email: string;
  status: string;
  checkoutUrl: string;
  createdAt: Date;
}

export class PaymentRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Records the payment against the wallet that owns `polygonAddress`, in one statement.
   * Returns false when no such wallet exists (a token sealed by us for a wallet since removed,
   * or a database that does not match the keys).
   */
  async insertForWallet(payment: NewPayment): Promise<boolean> {
    const { rowCount } = await this.pool.query({
      name: 'payment-insert-for-wallet',
      text: `INSERT INTO payments (id, wallet_id, amount, currency, provider, email, checkout_url)
             SELECT $1, w.id, $3, $4, $5, $6, $7 FROM wallets w WHERE w.polygon_address = $2`,
      values: [
        payment.id,
        payment.polygonAddress.toLowerCase(),
        payment.amount,
        payment.currency,
        payment.provider,
        payment.email,
        payment.checkoutUrl,
      ],
    });
    return rowCount === 1;
  }

  async findById(id: string): Promise<PaymentRow | undefined> {
    const { rows } = await this.pool.query<PaymentRow>({
      name: 'payment-by-id',
      text: `SELECT id, wallet_id::text AS "walletId", amount::text AS amount, currency, provider, email, status,
                    checkout_url AS "checkoutUrl", created_at AS "createdAt"
             FROM payments WHERE id = $1`,
      values: [id],
    });
    return rows[0];
  }
}
