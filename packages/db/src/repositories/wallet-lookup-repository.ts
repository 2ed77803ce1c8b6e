import type { Pool } from 'pg';

/** Read-only questions about wallets from the payment host (it never creates or changes one). */
export class WalletLookupRepository {
  constructor(private readonly pool: Pool) {}

  /** Whether a wallet of this gateway has this temporary address (lower-case hex, as opened from address_in). */
  async hasTemporaryAddress(polygonAddress: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ found: boolean }>({
      name: 'wallet-has-temporary-address',
      text: 'SELECT EXISTS (SELECT 1 FROM wallets WHERE polygon_address = $1) AS found',
      values: [polygonAddress.toLowerCase()],
    });
    return rows[0]?.found === true;
  }
}
