-- Checkouts that expire, and checkouts that are a form (issue 23).
--
-- A session provider's checkout lives minutes (Transak's widget URL five, single use), so the
-- customer's link (/payment/<id>/checkout) reuses a live one on a reload and asks the provider for
-- a fresh one once it has expired or, single use, was handed out. Some providers take a form POST
-- instead of a URL (Simplex): the payment host serves it as an auto-submitting page.
--
-- checkout_url          a redirect checkout's URL, or a form checkout's action
-- checkout_form_fields  the fields a form checkout posts (a JSON object of strings); null for a URL
-- checkout_expires_at   when the provider stops accepting it; null for a URL that never expires
-- checkout_single_use   the provider accepts it once
-- checkout_served_at    when a single-use checkout was handed out (to a browser or a JSON client)
-- checkout_attempts     checkouts the provider gave for this payment: the idempotency key of each
--                       attempt after the first is <payment id>:<attempt>, so a fresh session is new

ALTER TABLE payments
  ADD COLUMN checkout_form_fields jsonb CHECK (checkout_form_fields IS NULL OR jsonb_typeof(checkout_form_fields) = 'object'),
  ADD COLUMN checkout_expires_at timestamptz,
  ADD COLUMN checkout_single_use boolean NOT NULL DEFAULT false,
  ADD COLUMN checkout_served_at timestamptz,
  ADD COLUMN checkout_attempts integer NOT NULL DEFAULT 0 CHECK (checkout_attempts >= 0);

-- Payments redirected before this migration had one checkout each.
UPDATE payments SET checkout_attempts = 1 WHERE status = 'redirected';
