-- The merchant's ledger (issue 34): every order (wallet) of a payout address created in a time
-- range, with its deposits, payout legs, first accepted callback and state, exported as CSV or JSON
-- Lines by `gateway ledger export` and wallet-control's GET /admin/ledger (docs/ledger.md).
--
-- wallets_payout_created_idx  the ledger pages through one payout address's wallets in the order
--                             they were created; no index served a wallet by its payout address.
--                             Also answers "does any wallet pay this address?" (404 otherwise).
-- deposits.block_time         the time of the block that holds the transfer, as the node gives it
--                             (eth_getLogs' blockTimestamp, or the block's header when the node
--                             gives none): what an accountant dates a payment by. seen_at is when
--                             the gateway saw it, which a stopped watcher or a replay makes later.
--                             NULL only in rows written before this migration (and hand-made ones).

CREATE INDEX wallets_payout_created_idx ON wallets (payout_address, created_at, id);

ALTER TABLE deposits ADD COLUMN block_time timestamptz;
