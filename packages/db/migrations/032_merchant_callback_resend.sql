-- A merchant sees its order's callbacks and asks for the latest again (issue 34).
--
-- Check Payment Status lists the wallet's callback deliveries, newest first, and
-- POST /control/resend-callback.php sends the latest one again. Both find a wallet's deliveries
-- newest first, which no index served (deliveries were only ever looked up by id, by deposit, or
-- as due): this one does, and keeps the newest few of a wallet with thousands of deposits as
-- cheap to read as the only one.
--
-- resend_latest_callback_delivery(wallet)  the wallet's latest delivery (the newest written) →
--                        pending, due now, with a new retry round, the resend counted
--                        (resend_count, resent_at): the same row, so the callback-worker signs
--                        it again over the same URL and the same delivery id. From any status
--                        but pending (delivered, failed, and whatever else a delivery may come to
--                        rest in): a pending delivery is already on its way, and moving its time
--                        could start a second attempt beside one a worker holds. Nothing else is
--                        changed. Returns whether it resent, the delivery, its status and when it
--                        is due; no row for a wallet without a delivery. Like migration 024's
--                        functions it is the owner's (SECURITY DEFINER), so wallet-control, which
--                        faces the internet, still has no UPDATE on callback_deliveries and can
--                        make this one move only. How often a merchant may ask is wallet-control's
--                        rate limit, not this function's.

CREATE INDEX callback_deliveries_wallet_created_idx ON callback_deliveries (wallet_id, created_at, id);

CREATE FUNCTION resend_latest_callback_delivery(of_wallet bigint)
  RETURNS TABLE (resent boolean, delivery_id uuid, delivery_status text, due_at timestamptz)
  LANGUAGE plpgsql SECURITY DEFINER
AS $$
DECLARE
  latest uuid;
BEGIN
  SELECT d.id INTO latest FROM callback_deliveries d
  WHERE d.wallet_id = of_wallet ORDER BY d.created_at DESC, d.id DESC LIMIT 1;
  IF latest IS NULL THEN
    RETURN;
  END IF;
  -- Two requests at once: the second waits for the first's row lock, then finds it pending.
  RETURN QUERY
    UPDATE callback_deliveries d
    SET status = 'pending', next_attempt_at = now(), round_start_attempts = d.attempt_count,
        resend_count = d.resend_count + 1, resent_at = now()
    WHERE d.id = latest AND d.status <> 'pending'
    RETURNING true, d.id, d.status, d.next_attempt_at;
  IF NOT FOUND THEN
    RETURN QUERY SELECT false, d.id, d.status, d.next_attempt_at FROM callback_deliveries d WHERE d.id = latest;
  END IF;
END $$;

DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION resend_latest_callback_delivery(bigint) SET search_path = %I, pg_temp', current_schema());
END $$;

REVOKE ALL ON FUNCTION resend_latest_callback_delivery(bigint) FROM PUBLIC;
