-- One plain e-mail, once (issue 32): a customer whose payment was declined or abandoned is written
-- to once, minutes later, with a link back to the same order. One row per order (its wallet), so an
-- order is never written to twice; the row follows the order's newest attempt until it is sent.
-- The states, moves and reasons are packages/domain recovery-email.ts (a test compares the CHECKs).
CREATE TABLE recovery_emails (
  id              uuid PRIMARY KEY,
  wallet_id       bigint NOT NULL UNIQUE REFERENCES wallets (id),
  -- The attempt written about: the order's newest when scheduled (moved to a newer one that is
  -- eligible in turn, until claimed).
  payment_id      uuid NOT NULL REFERENCES payments (id),
  trigger         text NOT NULL CHECK (trigger IN ('declined', 'abandoned')),
  state           text NOT NULL DEFAULT 'scheduled' CHECK (state IN ('scheduled', 'sending', 'sent', 'failed', 'skipped')),
  due_at          timestamptz NOT NULL,
  -- SMTP attempts claimed (each counted before the SMTP call).
  attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  skip_reason     text CHECK (skip_reason IN ('order_paid', 'provider_progress', 'tried_again', 'too_late')),
  failure_reason  text CHECK (failure_reason IN ('rejected', 'retries_used', 'outcome_unknown')),
  -- The SMTP client's error of the last failed attempt (code and reply, never the SMTP URL).
  last_error      text,
  -- SHA-256 of the key the e-mailed link carries: with it the link acts on the payment as its own
  -- browser's key does (the second chance). Stored with the claim, before the message leaves.
  link_key_hash   bytea CHECK (octet_length(link_key_hash) = 32),
  claimed_at      timestamptz,
  sent_at         timestamptz,
  -- The SMTP server's Message-ID of the message it accepted, for the operator's mail logs.
  message_id      text,
  -- USDC arrived in the order's wallet after the e-mail went (counted once, for the metrics).
  recovered_at    timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT recovery_emails_skip_has_reason CHECK ((state = 'skipped') = (skip_reason IS NOT NULL)),
  CONSTRAINT recovery_emails_failure_has_reason CHECK ((state = 'failed') = (failure_reason IS NOT NULL)),
  CONSTRAINT recovery_emails_sent_has_time CHECK ((state = 'sent') = (sent_at IS NOT NULL))
);

CREATE INDEX recovery_emails_payment_idx ON recovery_emails (payment_id);
-- The reconciler's walk: scheduled rows due (and their jobs), sends whose lease ran out.
CREATE INDEX recovery_emails_scheduled_idx ON recovery_emails (due_at, id) WHERE state = 'scheduled';
CREATE INDEX recovery_emails_sending_idx ON recovery_emails (claimed_at) WHERE state = 'sending';
-- Sent e-mails whose order is not yet paid: the recovered count's walk.
CREATE INDEX recovery_emails_unrecovered_idx ON recovery_emails (sent_at) WHERE state = 'sent' AND recovered_at IS NULL;

-- The scanner's candidates, without reading every payment: checkouts the provider has said nothing
-- about, by age, and declines, by the time they were recorded.
CREATE INDEX payments_unanswered_checkout_idx ON payments (created_at) WHERE provider_status IS NULL AND status = 'redirected';
CREATE INDEX payments_declined_idx ON payments (provider_updated_at) WHERE provider_status IN ('declined', 'failed');
