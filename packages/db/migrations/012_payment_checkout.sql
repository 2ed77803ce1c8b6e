-- Process Payment records the payment before it asks the provider for a checkout (some providers
-- need a server-side session first): 'creating' until the provider answers, then 'redirected'
-- with the checkout URL, or 'checkout_failed' with the reason. Statuses as in
-- packages/domain/src/payment-states.ts.

ALTER TABLE payments DROP CONSTRAINT payments_status_check;
ALTER TABLE payments
  ALTER COLUMN status SET DEFAULT 'creating',
  ADD CONSTRAINT payments_status_check CHECK (status IN ('creating', 'redirected', 'checkout_failed')),
  ALTER COLUMN checkout_url DROP NOT NULL,
  ADD CONSTRAINT payments_redirected_has_url CHECK (status <> 'redirected' OR checkout_url IS NOT NULL),
  -- Why the provider gave no checkout (operators' words, never shown to the customer as is).
  ADD COLUMN checkout_error text,
  -- The provider's own status word, beside the mapped provider_status: support reads it in the provider's dashboard terms.
  ADD COLUMN provider_raw_status text;

-- Webhooks that carry only the provider's reference for the order find the payment by it.
CREATE INDEX payments_provider_reference_idx ON payments (provider, provider_reference) WHERE provider_reference IS NOT NULL;
