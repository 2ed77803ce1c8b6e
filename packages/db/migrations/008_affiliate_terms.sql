-- Affiliate wallets (affiliate.php, custom-affiliate.php): the split is fixed when the wallet is
-- created and never changes once payments could arrive.
--
-- affiliate_address / affiliate_fee_bps (004) say who the affiliate is and its share.
-- merchant_fee_bps is set only for a custom split: the merchant's share as given. The platform then
-- gets what is left (10000 - merchant - affiliate), whatever PLATFORM_FEE_BPS says later. Null: the
-- platform fee is the configured one and the merchant gets the rest (wallet.php, affiliate.php).

ALTER TABLE wallets
  ADD COLUMN merchant_fee_bps integer CHECK (merchant_fee_bps BETWEEN 0 AND 10000),
  ADD CONSTRAINT wallets_custom_split CHECK (
    merchant_fee_bps IS NULL OR (affiliate_fee_bps IS NOT NULL AND merchant_fee_bps + affiliate_fee_bps <= 10000)),
  -- The affiliate is paid to a wallet of its own, never to the merchant's payout address.
  ADD CONSTRAINT wallets_affiliate_not_payout CHECK (affiliate_address IS DISTINCT FROM payout_address);
