-- A provider status between the card charged and the USDC sent (issue 23): Alchemy Pay's PAY_SUCCESS,
-- Mercuryo's buy:paid, Onramp.money's "deposit secured" are the card payment, not the crypto sent; a
-- refund or a failed transfer may still follow, so they are no longer recorded as the final `paid`.

ALTER TABLE payments DROP CONSTRAINT payments_provider_status_check;
ALTER TABLE payments
  ADD CONSTRAINT payments_provider_status_check CHECK (provider_status IN ('pending', 'charged', 'paid', 'declined', 'failed'));
