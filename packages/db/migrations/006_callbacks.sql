-- Manual resends of failed callbacks. A resend starts a new retry round (the full backoff schedule
-- again) while attempt numbers keep counting, so callback_attempts stays one history per delivery.

ALTER TABLE callback_deliveries
  -- attempt_count when the current round began: 0, or its value at the last resend. The retry
  -- schedule counts the failures of this round only (attempt_count - round_start_attempts).
  ADD COLUMN round_start_attempts  integer NOT NULL DEFAULT 0,
  ADD COLUMN resend_count          integer NOT NULL DEFAULT 0,
  ADD COLUMN resent_at             timestamptz,
  ADD CONSTRAINT callback_deliveries_round_check CHECK (round_start_attempts BETWEEN 0 AND attempt_count);
