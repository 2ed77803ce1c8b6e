import type { PoolClient } from 'pg';
import { affiliateTermsOf, callbackPathBinding } from '@gateway/domain';

const BATCH = 5_000;

interface LegacyWallet {
  id: string;
  callback_url: string;
  payout_address: string;
  affiliate_address: string | null;
  affiliate_fee_bps: number | null;
  merchant_fee_bps: number | null;
}

/**
 * Migration 017's code step: claims the callback path of every live wallet that exists already
 * for the terms of the first wallet on it (lowest id), as Create Wallet would have. Batches in id
 * order: a path claimed by an earlier batch keeps its claim (ON CONFLICT DO NOTHING). A stored URL
 * the parser no longer reads (none should exist: Create Wallet parsed each) claims nothing.
 */
export async function bindLegacyCallbackPaths(client: PoolClient): Promise<void> {
  let after = '0';
  for (;;) {
    const { rows } = await client.query<LegacyWallet>(
      `SELECT id::text, callback_url, payout_address, affiliate_address, affiliate_fee_bps, merchant_fee_bps
       FROM wallets WHERE callback_released_at IS NULL AND id > $1::bigint ORDER BY id LIMIT $2`,
      [after, BATCH],
    );
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.id;
    const claims = rows.flatMap((row) => {
      const affiliate = affiliateTermsOf({
        affiliateAddress: row.affiliate_address,
        affiliateFeeBps: row.affiliate_fee_bps,
        merchantFeeBps: row.merchant_fee_bps,
      });
      try {
        return [{ row, binding: callbackPathBinding(row.callback_url, { payoutAddress: row.payout_address, affiliate }) }];
      } catch {
        return [];
      }
    });
    await client.query(
      `INSERT INTO callback_paths (path_key, callback_path, terms, payout_address, affiliate_address, affiliate_fee_bps, merchant_fee_bps)
       SELECT DISTINCT ON (path_key) path_key, callback_path, terms, payout_address, affiliate_address, affiliate_fee_bps, merchant_fee_bps
       FROM unnest($1::bytea[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[])
            WITH ORDINALITY
            AS c(path_key, callback_path, terms, payout_address, affiliate_address, affiliate_fee_bps, merchant_fee_bps, ord)
       ORDER BY path_key, ord
       ON CONFLICT (path_key) WHERE released_at IS NULL DO NOTHING`,
      [
        claims.map((c) => c.binding.key),
        claims.map((c) => c.binding.path),
        claims.map((c) => c.binding.terms),
        claims.map((c) => c.row.payout_address),
        claims.map((c) => c.row.affiliate_address),
        claims.map((c) => c.row.affiliate_fee_bps),
        claims.map((c) => c.row.merchant_fee_bps),
      ],
    );
  }
}
