-- Two writes an app makes through a function of the owner's instead of a grant (issue 35).
--
-- A login user inherits its app role's grants (INHERIT, PostgreSQL's default), so after `SET ROLE
-- NONE` it has them all while current_user is its own name: migration 018's trigger, which held
-- wallet-control to failed → pending only `WHEN current_user = <its role>`, let that login user set a
-- delivered callback back to pending (the callback-worker would sign it and send it again). And
-- every app could insert into chain_tokens: a second row naming USDC.e disarms the trigger of
-- migration 023, and a USDC.e deposit is then forwarded and called back as USDC.
--
-- From here neither is a grant. Each is a SECURITY DEFINER function, owned by the owner who runs
-- the migrations, that does one thing, whoever calls it:
--
-- resend_failed_callback_delivery(id)  failed → pending, due now, with a new retry round (what the
--                        admin resend and `gateway callbacks resend` do); any other delivery is left
--                        as it is. Returns whether it resent, the delivery's status and when it is
--                        due; no row for an unknown id. wallet-control has no UPDATE on
--                        callback_deliveries any more (app-privileges.sql), so 018's trigger
--                        guards nothing and is dropped.
-- record_first_token(chain, address)  records the token when the database knows none, under a
--                        lock (two first boots cannot both record), and nothing otherwise: an app
--                        can never add a second token. The apps read chain_tokens and refuse to
--                        boot with another token, as before.
--
-- Both run with search_path pinned to this schema (then pg_temp, so a caller's temporary table
-- cannot stand in for one of ours), and PUBLIC may not execute them: app-privileges.sql grants
-- EXECUTE to the apps that call them.

DROP TRIGGER callback_deliveries_resend_only ON callback_deliveries;
DROP FUNCTION callback_delivery_resend_only();

CREATE FUNCTION resend_failed_callback_delivery(delivery_id uuid)
  RETURNS TABLE (resent boolean, delivery_status text, due_at timestamptz)
  LANGUAGE plpgsql SECURITY DEFINER
AS $$
BEGIN
  RETURN QUERY
    UPDATE callback_deliveries d
    SET status = 'pending', next_attempt_at = now(), round_start_attempts = d.attempt_count,
        resend_count = d.resend_count + 1, resent_at = now()
    WHERE d.id = delivery_id AND d.status = 'failed'
    RETURNING true, d.status, d.next_attempt_at;
  IF NOT FOUND THEN
    RETURN QUERY SELECT false, d.status, d.next_attempt_at FROM callback_deliveries d WHERE d.id = delivery_id;
  END IF;
END $$;

CREATE FUNCTION record_first_token(token_chain_id integer, token_address text)
  RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER
AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM chain_tokens) THEN
    RETURN;
  END IF;
  -- Against itself only (and other writers, which only the owner is): readers never wait.
  LOCK TABLE chain_tokens IN SHARE ROW EXCLUSIVE MODE;
  INSERT INTO chain_tokens (chain_id, address)
  SELECT token_chain_id, token_address WHERE NOT EXISTS (SELECT 1 FROM chain_tokens);
END $$;

DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION resend_failed_callback_delivery(uuid) SET search_path = %I, pg_temp', current_schema());
  EXECUTE format('ALTER FUNCTION record_first_token(integer, text) SET search_path = %I, pg_temp', current_schema());
END $$;

REVOKE ALL ON FUNCTION resend_failed_callback_delivery(uuid), record_first_token(integer, text) FROM PUBLIC;
