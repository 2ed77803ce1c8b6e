-- A merchant that answers a callback with a 4xx other than 408, 425 and 429 has understood it and
-- refused (the official WooCommerce plugin answers 400 to a repeated callback of a paid order): it
-- is retried on a short schedule, then the delivery ends `refused` instead of being retried for
-- three days and `failed` (issue 34; the rule is packages/domain's callback-attempt-policy.ts).

ALTER TABLE callback_deliveries DROP CONSTRAINT callback_deliveries_status_check;
ALTER TABLE callback_deliveries
  ADD CONSTRAINT callback_deliveries_status_check CHECK (status IN ('pending', 'delivered', 'failed', 'refused')),
  -- Refusals in a row up to the latest attempt (0 once the merchant answers anything else, and after
  -- a resend): the short schedule counts them, the long one the failures of the round.
  ADD COLUMN refusals_in_row integer NOT NULL DEFAULT 0 CHECK (refusals_in_row >= 0);

-- What waits for an operator, newest first (`gateway callbacks list`): few rows among the delivered.
CREATE INDEX callback_deliveries_given_up_idx ON callback_deliveries (created_at DESC) WHERE status IN ('failed', 'refused');

-- The operator's resend takes a refused delivery as it takes a failed one: pending, due now, with a
-- new retry round (the refusals in a row start again too). Same name and signature, so the admin
-- route and `gateway callbacks resend` keep calling it. CREATE OR REPLACE keeps its owner and its
-- grants (PUBLIC still may not execute it) but not the search_path migration 024 pinned: pinned again below.
CREATE OR REPLACE FUNCTION resend_failed_callback_delivery(delivery_id uuid)
  RETURNS TABLE (resent boolean, delivery_status text, due_at timestamptz)
  LANGUAGE plpgsql SECURITY DEFINER
AS $$
BEGIN
  RETURN QUERY
    UPDATE callback_deliveries d
    SET status = 'pending', next_attempt_at = now(), round_start_attempts = d.attempt_count, refusals_in_row = 0,
        resend_count = d.resend_count + 1, resent_at = now()
    WHERE d.id = delivery_id AND d.status IN ('failed', 'refused')
    RETURNING true, d.status, d.next_attempt_at;
  IF NOT FOUND THEN
    RETURN QUERY SELECT false, d.status, d.next_attempt_at FROM callback_deliveries d WHERE d.id = delivery_id;
  END IF;
END $$;

DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION resend_failed_callback_delivery(uuid) SET search_path = %I, pg_temp', current_schema());
END $$;
