-- The platform fee is part of a wallet's terms, recorded when the wallet is created like the
-- affiliate split (008): settlement pays what the wallet says, and a later change of
-- PLATFORM_FEE_BPS prices only the wallets created after it. And settlement refuses to sign a leg
-- that is not what the wallet's terms give (plan_mismatch).

-- Existing wallets were priced at settlement time by the settlement worker's PLATFORM_FEE_BPS:
-- they keep that fee. A custom split (custom-affiliate.php) already fixed it as what the merchant's
-- and the affiliate's shares leave. For the others the migration cannot read the worker's
-- environment: it takes the PostgreSQL setting gateway.platform_fee_bps when the database has one
-- (ALTER DATABASE <name> SET gateway.platform_fee_bps = '150', before migrating), else 100,
-- PLATFORM_FEE_BPS's default (README, "Settlement on chain").
ALTER TABLE wallets ADD COLUMN platform_fee_bps integer;

-- A wallet row never changes once written (014's trigger): filling in the new term of the rows
-- already there is the one update this migration makes, knowingly.
ALTER TABLE wallets DISABLE TRIGGER wallets_row_unchanged;
UPDATE wallets
SET platform_fee_bps = CASE
  WHEN merchant_fee_bps IS NOT NULL THEN 10000 - merchant_fee_bps - affiliate_fee_bps
  ELSE coalesce(nullif(current_setting('gateway.platform_fee_bps', true), '')::integer, 100)
END;
ALTER TABLE wallets ENABLE TRIGGER wallets_row_unchanged;

-- The default serves only rows written by hand (tests' fixtures): Create Wallet always writes the
-- fee it charged, and a custom split's rows must add up to 100% (the check below).
ALTER TABLE wallets
  ALTER COLUMN platform_fee_bps SET DEFAULT 100,
  ALTER COLUMN platform_fee_bps SET NOT NULL,
  ADD CONSTRAINT wallets_platform_fee_bps_check CHECK (platform_fee_bps BETWEEN 0 AND 10000),
  ADD CONSTRAINT wallets_fees_within_whole CHECK (platform_fee_bps + coalesce(affiliate_fee_bps, 0) <= 10000),
  ADD CONSTRAINT wallets_custom_split_whole CHECK (
    merchant_fee_bps IS NULL OR merchant_fee_bps + affiliate_fee_bps + platform_fee_bps = 10000);

-- plan_mismatch: a leg whose row is not the leg the wallet's terms give (its recipient, amount or
-- temporary wallet rewritten); settlement never signs it. The reasons are those of
-- packages/domain/src/settlement-states.ts (NEEDS_ATTENTION_REASONS).
ALTER TABLE deposits DROP CONSTRAINT deposits_attention_reason_check;
ALTER TABLE deposits ADD CONSTRAINT deposits_attention_reason_check CHECK (attention_reason IN (
  'payout_address_blacklisted', 'fee_address_blacklisted', 'affiliate_address_blacklisted', 'temporary_wallet_blacklisted',
  'authorization_cancelled', 'insufficient_balance', 'transfer_reverted', 'plan_mismatch'));

ALTER TABLE payouts DROP CONSTRAINT payouts_attention_reason_check;
ALTER TABLE payouts ADD CONSTRAINT payouts_attention_reason_check CHECK (attention_reason IN (
  'payout_address_blacklisted', 'fee_address_blacklisted', 'affiliate_address_blacklisted', 'temporary_wallet_blacklisted',
  'authorization_cancelled', 'insufficient_balance', 'transfer_reverted', 'plan_mismatch'));
