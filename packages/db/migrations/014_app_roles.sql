-- Each app its own PostgreSQL role, and wallet terms nobody changes.
--
-- Until now every app used the owner's credentials, so code running in an internet-facing app
-- could rewrite a wallet's payout address or a planned payout leg, and settlement would sign the
-- money away. From here:
--
-- app_roles   one NOLOGIN role per app, <prefix>_<app>: gateway_wallet_control,
--             gateway_payment_redirect, gateway_callback_worker, gateway_chain_watcher,
--             gateway_settlement_worker. Roles belong to the whole cluster, not to a schema: the
--             prefix (DATABASE_ROLE_PREFIX, which migrate() passes as gateway.role_prefix; default
--             gateway) keeps two gateways of one cluster apart, while the schemas of one gateway
--             (the tests make one per file) share them. A role that exists is used as it is, so the
--             migrations also run as a user that may not create roles once a superuser made them.
--             What each role may do is in app-privileges.sql, which migrate() applies after the
--             numbered migrations; login users are made members of their app's role by the
--             operator, and the apps take the role at connect (packages/db/src/pool.ts).
-- wallets     a row never changes once written (trigger below): who is paid (payout and affiliate
--             addresses), how much (the split, and any term a later migration adds), who is told
--             (callback URL), which key and address the wallet is. The one change allowed is the
--             operator's release of a callback (013). This holds for the owner too; only a change
--             of the schema itself (a migration, knowingly) can lift it.

CREATE TABLE app_roles (
  app        text PRIMARY KEY CHECK (app IN ('wallet-control', 'payment-redirect', 'callback-worker', 'chain-watcher', 'settlement-worker')),
  role_name  text NOT NULL UNIQUE
);

DO $$
DECLARE
  prefix constant text := coalesce(nullif(current_setting('gateway.role_prefix', true), ''), 'gateway');
  app text;
  role_name text;
  found_role pg_roles;
BEGIN
  -- The longest name, <prefix>_settlement_worker, within PostgreSQL's 63 bytes.
  IF prefix !~ '^[a-z_][a-z0-9_]{0,40}$' THEN
    RAISE EXCEPTION 'invalid role prefix "%": lower-case letters, digits and _, at most 41', prefix;
  END IF;
  FOREACH app IN ARRAY ARRAY['wallet-control', 'payment-redirect', 'callback-worker', 'chain-watcher', 'settlement-worker'] LOOP
    role_name := prefix || '_' || replace(app, '-', '_');
    IF NOT EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = role_name) THEN
      BEGIN
        EXECUTE format('CREATE ROLE %I NOLOGIN', role_name);
      EXCEPTION
        -- Another schema's or database's migration created it meanwhile (a concurrent CREATE ROLE
        -- waits for the first to commit, then fails on the unique name): it is there now.
        WHEN duplicate_object OR unique_violation THEN NULL;
        WHEN insufficient_privilege THEN
          RAISE EXCEPTION 'role % does not exist, and % may not create roles', role_name, current_user
            USING HINT = 'create the roles (NOLOGIN) as a superuser first, or let the user running the migrations CREATEROLE';
      END;
    END IF;
    SELECT * INTO found_role FROM pg_roles r WHERE r.rolname = role_name;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'role % is missing right after its creation', role_name;
    END IF;
    -- A role that can do more than its grants would make them pointless.
    IF found_role.rolsuper OR found_role.rolcreaterole OR found_role.rolbypassrls
       OR EXISTS (SELECT 1 FROM pg_auth_members m WHERE m.member = found_role.oid) THEN
      RAISE EXCEPTION 'role % exists with more than an app may have (superuser, CREATEROLE, BYPASSRLS, or a member of another role)', role_name
        USING HINT = 'an app role holds only what app-privileges.sql grants it: give it none of these, or choose another DATABASE_ROLE_PREFIX';
    END IF;
    INSERT INTO app_roles (app, role_name) VALUES (app, role_name);
  END LOOP;
END $$;

CREATE FUNCTION wallet_row_unchanged() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text[];
BEGIN
  -- Every column, also those later migrations add, compared as JSON values.
  SELECT array_agg(n.key ORDER BY n.key) INTO changed
  FROM jsonb_each(to_jsonb(NEW)) n JOIN jsonb_each(to_jsonb(OLD)) o USING (key)
  WHERE n.value IS DISTINCT FROM o.value
    -- The one change a wallet knows: the operator's release of its callback (013), once, which
    -- gives up its (payout, callback) key.
    AND NOT (n.key = 'callback_released_at' AND o.value = 'null'::jsonb)
    AND NOT (n.key = 'dedupe_key' AND n.value = 'null'::jsonb);
  IF changed IS NOT NULL THEN
    RAISE EXCEPTION 'wallet %: % never % once written', OLD.id, array_to_string(changed, ', '),
      CASE WHEN cardinality(changed) = 1 THEN 'changes' ELSE 'change' END
      USING ERRCODE = 'restrict_violation',
            HINT = 'a wallet''s terms are fixed when it is created: new terms are a new wallet';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER wallets_row_unchanged BEFORE UPDATE ON wallets FOR EACH ROW EXECUTE FUNCTION wallet_row_unchanged();
