-- wallet-control may move a callback delivery only from failed to pending (the operator's resend).
--
-- Its column grant (app-privileges.sql: UPDATE of status, next_attempt_at, … on callback_deliveries)
-- cannot say which rows or which values: with it, code running in that internet-facing app could
-- set a delivered callback back to pending, and the callback-worker would sign it and send it again
-- (the shop told twice that it was paid). Below its grant, this trigger holds the one move the
-- resend makes: failed → pending. Any other update by that role is refused (42501), whatever the
-- columns; the callback-worker's own moves (pending → delivered/failed, its resend command) and the
-- owner's are untouched. The role is the one migration 014 recorded for wallet-control in app_roles,
-- written into the trigger's condition, so the check costs no look-up per row.

CREATE FUNCTION callback_delivery_resend_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'callback delivery %: only a failed callback delivery may be moved back to pending by %, not % → %',
    OLD.id, current_user, OLD.status, NEW.status
    USING ERRCODE = 'insufficient_privilege',
          HINT = 'the admin resend (POST /admin/callbacks/<id>/resend) moves a failed delivery to pending; nothing else is this role''s to change';
END $$;

DO $$
DECLARE
  wallet_control_role text;
BEGIN
  SELECT r.role_name INTO STRICT wallet_control_role FROM app_roles r WHERE r.app = 'wallet-control';
  EXECUTE format(
    'CREATE TRIGGER callback_deliveries_resend_only BEFORE UPDATE ON callback_deliveries FOR EACH ROW
       WHEN (current_user = %L AND NOT (OLD.status = ''failed'' AND NEW.status = ''pending''))
       EXECUTE FUNCTION callback_delivery_resend_only()',
    wallet_control_role);
END $$;
