-- Status without webhooks (issue 23): a provider whose adapter can look an order up is asked on a
-- schedule until its status is final or the payment is old. The schedule lives here, not in Redis,
-- so a flushed Redis loses no poll: the reconciler gives every overdue row its job again.
--
-- status_poll_due_at  when the provider is to be asked next; null once polling stopped (final
--                     status, payment too old) or for a provider that cannot be asked
-- status_polls        look-ups made so far: the next delay doubles with each (domain statusPollDelayMs)

ALTER TABLE payments
  ADD COLUMN status_poll_due_at timestamptz,
  ADD COLUMN status_polls integer NOT NULL DEFAULT 0 CHECK (status_polls >= 0);

-- The reconciler's walk: only payments still polled, by due time.
CREATE INDEX payments_status_poll_due ON payments (status_poll_due_at, id) WHERE status_poll_due_at IS NOT NULL;
