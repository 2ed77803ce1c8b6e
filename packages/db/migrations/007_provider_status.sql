-- What the provider says about a payment (its signed webhook). It explains the wait, or a declined
-- card, on the customer's receipt page; it never moves funds or triggers a merchant callback.

ALTER TABLE payments
  ADD COLUMN provider_status      text CHECK (provider_status IN ('pending', 'paid', 'declined', 'failed')),
  -- The provider's own order id, for support.
  ADD COLUMN provider_reference   text,
  -- Why a card was declined, in the provider's words (shown to the customer).
  ADD COLUMN provider_reason      text,
  ADD COLUMN provider_updated_at  timestamptz;
