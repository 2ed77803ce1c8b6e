-- A payment id is not enough to act in the customer's name (issue 35). The id is in the receipt
-- URL, which every provider is given as its return URL; the checkout link and the second chance
-- send the customer's e-mail and wallet to a provider, so they need more than the id.
--
-- payments.customer_key_hash   SHA-256 of the payment's key (paymentKeyHash in packages/domain):
--                              32 random bytes handed to the browser that started the payment
--                              (an HttpOnly cookie scoped to /payment/<id>, or the key in a JSON
--                              client's checkout_link), never stored as is. NULL for payments
--                              recorded before this migration: nobody holds their key, so their
--                              checkout link and second chance are refused (the receipt still shows).
-- payments.second_chances      how many second chances were taken from this payment; at most
--                              SECOND_CHANCES_MAX (claimed before the new payment is recorded).
-- wallet_payment_attempts      how many payments were asked for on each wallet (one order): Process
--                              Payment, the hosted checkout's links and second chances alike, the
--                              refused ones included; a payment is recorded only while its place
--                              is within ORDER_ATTEMPTS_MAX. A table of its own: wallet rows never
--                              change once written (wallets_row_unchanged, migration 014).
--
-- The reads that follow a wallet's payments (the receipt, Check Payment Status, which attempt paid)
-- take the newest few through payments_wallet_created_idx (backwards, LIMIT), and the one a provider
-- reported sending a transaction through payments_provider_tx_hash_idx: their cost no longer grows
-- with the number of attempts. The first index leads with wallet_id, so it replaces payments_wallet_id_idx.

ALTER TABLE payments
  ADD COLUMN customer_key_hash bytea CHECK (octet_length(customer_key_hash) = 32),
  ADD COLUMN second_chances integer NOT NULL DEFAULT 0 CHECK (second_chances >= 0);

CREATE TABLE wallet_payment_attempts (
  wallet_id bigint PRIMARY KEY REFERENCES wallets (id),
  -- bigint: refused attempts count too, and nothing stops a client from asking again and again.
  attempts  bigint NOT NULL CHECK (attempts >= 0)
);

INSERT INTO wallet_payment_attempts (wallet_id, attempts)
SELECT wallet_id, count(*) FROM payments GROUP BY wallet_id;

CREATE INDEX payments_wallet_created_idx ON payments (wallet_id, created_at, id);
DROP INDEX payments_wallet_id_idx;
CREATE INDEX payments_provider_tx_hash_idx ON payments (provider_tx_hash) WHERE provider_tx_hash IS NOT NULL;
