-- What each app may do in the database: the whole truth, applied by migrate() after the numbered
-- migrations on every run (everything revoked first, then granted, in one transaction, so a
-- privilege added here by hand elsewhere does not survive the next migration). A table or column
-- an app needs is granted here, in the change that makes it need it; nothing is granted by default.
-- packages/db/test/app-roles.test.ts runs every repository statement of each app as its role, and
-- what it must never do.
--
-- :"wallet_control" … are the apps' roles (<DATABASE_ROLE_PREFIX>_<app>, migration 014, from
-- app_roles) and :"schema" the schema migrated, as psql variables: the file also runs as is with
-- psql -v schema=public -v wallet_control=gateway_wallet_control … -f app-privileges.sql.
--
-- Read-only access is SELECT on the table (or the columns the app reads, where the rest is none of
-- its business); writes are INSERT of whole rows the app creates, and UPDATE of the columns it
-- moves, or EXECUTE of an owner's function that makes one move only (migration 024), where a column
-- grant would allow more than the app's move. No app may DELETE or TRUNCATE anything. No app may change a wallet (the owner may not
-- either: migration 014). Only the settlement-worker plans, signs and records payouts.

REVOKE ALL ON ALL TABLES IN SCHEMA :"schema"
  FROM :"wallet_control", :"payment_redirect", :"callback_worker", :"chain_watcher", :"settlement_worker";
REVOKE ALL ON ALL SEQUENCES IN SCHEMA :"schema"
  FROM :"wallet_control", :"payment_redirect", :"callback_worker", :"chain_watcher", :"settlement_worker";
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA :"schema"
  FROM :"wallet_control", :"payment_redirect", :"callback_worker", :"chain_watcher", :"settlement_worker";
-- The owner's functions that write (SECURITY DEFINER, migration 024) are for the apps granted below only.
REVOKE ALL ON FUNCTION resend_failed_callback_delivery(uuid), record_first_token(integer, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION resend_latest_callback_delivery(bigint) FROM PUBLIC;
GRANT USAGE ON SCHEMA :"schema"
  TO :"wallet_control", :"payment_redirect", :"callback_worker", :"chain_watcher", :"settlement_worker";

-- wallet-control (internet-facing, holds the xpub): Create Wallet and the affiliate endpoints
-- insert wallets with the HD indexes they reserve; Check Payment Status reads a wallet's
-- payments, deposits and callbacks; the admin route resends a failed or refused callback, through the
-- owner's function that moves only failed or refused → pending (migrations 024, 030): no UPDATE on callback_deliveries.
GRANT SELECT, INSERT ON wallets TO :"wallet_control";
-- The claim on a callback's origin and path (migration 017), taken with a path's first wallet;
-- only the owner releases one (release-callback --path).
GRANT SELECT, INSERT ON callback_paths TO :"wallet_control";
GRANT USAGE ON SEQUENCE wallet_hd_index_seq TO :"wallet_control";
GRANT SELECT, INSERT ON hd_keys TO :"wallet_control";
GRANT SELECT ON payments, deposits, callback_deliveries TO :"wallet_control";
GRANT EXECUTE ON FUNCTION resend_failed_callback_delivery(uuid) TO :"wallet_control";
-- The merchant's own view of its callbacks (Check Payment Status): each attempt's time, answer and
-- error code, not the worker's error text. Its resend of the latest callback, delivered or not, is
-- the owner's function that moves that one delivery to pending (migration 032).
GRANT SELECT (delivery_id, attempt_no, started_at, duration_ms, status_code, error_code, response_excerpt)
  ON callback_attempts TO :"wallet_control";
GRANT EXECUTE ON FUNCTION resend_latest_callback_delivery(bigint) TO :"wallet_control";
-- The merchant's ledger (GET /admin/ledger, migration 031): what each payout leg paid and in which
-- transaction, never where a leg goes (the merchant's is the wallet's payout address; the others are
-- the platform's and the affiliate's).
GRANT SELECT (deposit_id, leg, amount, status, tx_hash, confirmed_at) ON payouts TO :"wallet_control";

-- payment-redirect (internet-facing, holds the providers' credentials): Process Payment finds the
-- wallet by its temporary address and records the payment and its checkout (which the customer's
-- link renews once expired, migration 017); the providers' webhooks and its status polls (migration 021)
-- update what the provider says (with the kind of a decline's reason, migration 035);
-- each payment's key is stored as its hash, and second chances and attempts per order are counted (migration 027);
-- the receipt page reads the payment, the deposits into its wallet, the merchant leg's transaction
-- and whether the callback was delivered. It never sees a wallet's payout address, callback URL or
-- ipn_token.
GRANT SELECT (id, polygon_address) ON wallets TO :"payment_redirect";
-- The order's terms, to classify it on the receipt page (migration 029), and who pays its fees, to make each
-- attempt's checkout (migration 038).
GRANT SELECT (order_tolerance_bps, platform_fee_bps, affiliate_fee_bps, customer_pays_fee) ON wallets TO :"payment_redirect";
-- Every column of a payment, the order's expectation (migration 029) and, for a rest payment, the attempt it
-- completes (migration 033) included: it records them with the payment and reads them back on the receipt.
GRANT SELECT, INSERT ON payments TO :"payment_redirect";
GRANT UPDATE (status, checkout_url, checkout_error, checkout_form_fields, checkout_expires_at, checkout_single_use,
              checkout_served_at, checkout_attempts,
              provider_status, provider_raw_status, provider_reference, provider_reason, provider_decline_kind,
              provider_updated_at, provider_tx_hash,
              status_poll_due_at, status_polls, second_chances)
  ON payments TO :"payment_redirect";
-- A report without a signed time is recorded once (migration 026).
GRANT SELECT, INSERT ON provider_report_events TO :"payment_redirect";
-- Attempts asked per wallet (one order), counted as each payment is recorded (migration 027).
GRANT SELECT, INSERT, UPDATE (attempts) ON wallet_payment_attempts TO :"payment_redirect";
GRANT SELECT ON deposits TO :"payment_redirect";
GRANT SELECT (deposit_id, leg, tx_hash) ON payouts TO :"payment_redirect";
GRANT SELECT (deposit_id, status) ON callback_deliveries TO :"payment_redirect";
-- The events it reads from a provider's queue and keeps (migration 028): never changed once kept.
GRANT SELECT, INSERT ON provider_events TO :"payment_redirect";
-- The recovery e-mail of each order (migration 036): scheduled by its scanner, claimed, sent or given
-- up on by its worker; the link's key hash is read with the payment's own (receipt, second chance).
GRANT SELECT, INSERT ON recovery_emails TO :"payment_redirect";
GRANT UPDATE (payment_id, trigger, state, due_at, attempts, skip_reason, failure_reason, last_error, link_key_hash,
              claimed_at, sent_at, message_id, recovered_at)
  ON recovery_emails TO :"payment_redirect";

-- callback-worker (talks to merchants' servers): claims deliveries (with what the callback carries
-- of the wallet, and whether its callback was released), records attempts and the refusals in a row
-- (migration 030); `gateway callbacks resend` runs as this role, through the owner's function
-- (migrations 024, 030), as wallet-control's does.
GRANT SELECT (id, polygon_address, payout_address, callback_url, callback_released_at, ipn_token) ON wallets TO :"callback_worker";
GRANT SELECT ON callback_deliveries TO :"callback_worker";
GRANT UPDATE (status, attempt_count, next_attempt_at, delivered_at, last_error, refusals_in_row) ON callback_deliveries TO :"callback_worker";
GRANT EXECUTE ON FUNCTION resend_failed_callback_delivery(uuid) TO :"callback_worker";
-- ON CONFLICT (delivery_id, attempt_no) reads the arbiter index's columns.
GRANT SELECT (delivery_id, attempt_no), INSERT ON callback_attempts TO :"callback_worker";

-- chain-watcher: matches Transfer logs to temporary wallets (and the gateway's own addresses),
-- records deposits and moves them to final or orphaned, keeps its cursor.
GRANT SELECT (id, polygon_address) ON wallets TO :"chain_watcher";
GRANT SELECT ON gateway_addresses TO :"chain_watcher";
GRANT SELECT, INSERT ON deposits TO :"chain_watcher";
-- block_time (migration 031) moves with the block when a reorg puts the transfer in another one.
GRANT UPDATE (status, block_number, block_hash, block_time, wallet_id, from_address, amount, seen_at, final_at) ON deposits
  TO :"chain_watcher";
GRANT SELECT, INSERT ON chain_cursors TO :"chain_watcher";
GRANT UPDATE (block_number, block_hash, updated_at) ON chain_cursors TO :"chain_watcher";
-- The time from checkout to USDC received, per provider: which payment of the wallet a new deposit
-- is credited to, and when its checkout was created.
GRANT SELECT (id, wallet_id, provider, created_at, provider_tx_hash) ON payments TO :"chain_watcher";

-- settlement-worker (holds the seed and the relayer key): reads the wallet's terms, plans,
-- signs, sends and confirms the legs, moves deposits from final on, writes the callback delivery
-- with `forwarded`, registers its own addresses. A leg's recipient, amount and nonce, once
-- planned, are not among the columns it may update.
GRANT SELECT ON wallets, hd_keys TO :"settlement_worker";
GRANT SELECT ON deposits TO :"settlement_worker";
-- The order's expectation (its latest attempt's, migration 029), which each callback's figures are judged against.
GRANT SELECT (id, wallet_id, created_at, provider, amount, currency, amount_usd, expected_usdc, expected_basis, tolerance_bps,
              window_ends_at)
  ON payments TO :"settlement_worker";
GRANT UPDATE (status, held_at, swept_by_deposit_id, forwarded_at, attention_reason, attention_detail, attention_at)
  ON deposits TO :"settlement_worker";
GRANT SELECT, INSERT ON payouts TO :"settlement_worker";
GRANT UPDATE (signature, valid_before, status, tx_hash, block_number, confirmed_at,
              attention_reason, attention_detail, attention_at, cancelled_at)
  ON payouts TO :"settlement_worker";
GRANT SELECT, INSERT ON payout_transactions TO :"settlement_worker";
GRANT UPDATE (status, sent_at) ON payout_transactions TO :"settlement_worker";
GRANT SELECT, INSERT ON relayer_nonces TO :"settlement_worker";
GRANT UPDATE (next_nonce, updated_at) ON relayer_nonces TO :"settlement_worker";
-- The delivery's upsert (ON CONFLICT (deposit_id) DO UPDATE SET deposit_id = deposit_id) updates that column to itself.
GRANT SELECT, INSERT ON callback_deliveries TO :"settlement_worker";
GRANT UPDATE (deposit_id) ON callback_deliveries TO :"settlement_worker";
GRANT SELECT, INSERT ON gateway_addresses TO :"settlement_worker";
-- `gateway deposits paid-by-hand` (its environment): the transfer an operator paid a held deposit with (migration 040).
GRANT SELECT, INSERT ON operator_payouts TO :"settlement_worker";

-- Every app that counts in the token reads it at boot, refusing to run with another (migration 016),
-- and records it when the database knows none yet through the owner's function, which records a
-- first token only (migration 024): no app may insert into chain_tokens.
GRANT SELECT ON chain_tokens TO :"wallet_control", :"payment_redirect", :"chain_watcher", :"settlement_worker";
GRANT EXECUTE ON FUNCTION record_first_token(integer, text)
  TO :"wallet_control", :"payment_redirect", :"chain_watcher", :"settlement_worker";
