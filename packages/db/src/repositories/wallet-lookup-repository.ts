import type { Pool } from 'pg';

/** What the payment host reads of a wallet to make an attempt's checkout: its fee terms and who pays the provider's fees. */
export interface WalletOrderTerms {
  /** The platform's share of its deposits, recorded at creation. */
  platformFeeBps: number;
  /** The affiliate's share; null without an affiliate. */
  affiliateFeeBps: number | null;
  /** Create Wallet's customer_pays_fee; null when not given (the operator's CUSTOMER_PAYS_FEES decides). */
  customerPaysFee: boolean | null;
}

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

  /** The wallet's order terms by its temporary address (lower-case hex, as opened from address_in); undefined for no such wallet. */
  async orderTermsOf(polygonAddress: string): Promise<WalletOrderTerms | undefined> {
    const { rows } = await this.pool.query<WalletOrderTerms>({
      name: 'wallet-order-terms',
      text: `SELECT platform_fee_bps AS "platformFeeBps", affiliate_fee_bps AS "affiliateFeeBps", customer_pays_fee AS "customerPaysFee"
             FROM wallets WHERE polygon_address = $1`,
      values: [polygonAddress.toLowerCase()],
    });
    return rows[0];
  }

  /** The same terms by the wallet's id (a payment's wallet_id); undefined for no such wallet. */
  async orderTermsOfWallet(walletId: string): Promise<WalletOrderTerms | undefined> {
    const { rows } = await this.pool.query<WalletOrderTerms>({
      name: 'wallet-order-terms-by-id',
      text: `SELECT platform_fee_bps AS "platformFeeBps", affiliate_fee_bps AS "affiliateFeeBps", customer_pays_fee AS "customerPaysFee"
             FROM wallets WHERE id = $1`,
      values: [walletId],
    });
    return rows[0];
  }
}
