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
