-- Which attempt paid (issue 23): one order (one temporary wallet) may be tried at several
-- providers, a second chance after a declined card. Where a provider's webhook reports the
-- transaction it sent the USDC in, the deposit of that transaction is credited to that payment
-- (attemptThatPaid in packages/domain), whatever attempt came later.
--
-- provider_tx_hash  the transaction the provider reported sending the USDC in; lower-case 0x hex

ALTER TABLE payments
  ADD COLUMN provider_tx_hash text CHECK (provider_tx_hash IS NULL OR provider_tx_hash ~ '^0x[0-9a-f]{64}$');
