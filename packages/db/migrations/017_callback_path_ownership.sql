-- A callback's origin and path belong to the payout address and terms of its first wallet (issue 22).
--
-- Migration 013 bound a callback URL byte for byte, so a stranger appended `&x=1` to a shop's
-- callback (every shop framework reads it as the same order) and had a wallet of their own on it.
-- From here, with CALLBACK_OWNERSHIP=path (wallet-control's default), the callback's origin and
-- path, in the canonical form of callbackOriginPath (@gateway/domain: WHATWG URL normalisation),
-- are claimed by the terms (payout address, affiliate, custom split) of the first wallet created
-- on them; every later wallet on the path must have the same terms, whatever its query. The
-- exact-URL rule of 013 stays as it is.
--
-- callback_paths     one live claim per path (released_at null), taken in the statement that
--                    creates the wallet (ON CONFLICT on the partial unique index: of concurrent
--                    first wallets on a path, one claims it, the others wait and see its claim).
--   path_key         sha256 of the canonical origin and path, computed by wallet-control.
--   terms            walletTermsKey (@gateway/domain): payout, affiliate and custom split as one text.
--   payout_address … the terms as columns, to say in a refusal what the path has.
--   released_at      set by `release-callback --path`: the path can be claimed again.
-- wallets.callback_path_id, callback_terms   the claim a wallet was created under, with its
--                    terms: the foreign key makes a wallet whose terms differ from its path's
--                    claim impossible. Null: a wallet created with CALLBACK_OWNERSHIP=shared, or
--                    before this migration. Never changed afterwards (wallet_row_unchanged).
--
-- Wallets that exist already: the migration's code step (bindLegacyCallbackPaths in
-- src/migrate.ts, run in this migration's transaction, as the canonical form needs the WHATWG
-- parser) claims each path for the terms of the first live wallet on it, so a stranger cannot be
-- the first to claim a shop's path after the upgrade. Live wallets on that path with other terms
-- are left as they are (their exact URLs keep calling back); `release-callback --list` names them.

CREATE TABLE callback_paths (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  path_key          bytea NOT NULL CHECK (octet_length(path_key) = 32),
  callback_path     text NOT NULL,
  terms             text NOT NULL,
  payout_address    text NOT NULL CHECK (payout_address ~ '^0x[0-9a-f]{40}$'),
  affiliate_address text CHECK (affiliate_address ~ '^0x[0-9a-f]{40}$'),
  affiliate_fee_bps integer,
  merchant_fee_bps  integer,
  created_at        timestamptz NOT NULL DEFAULT now(),
  released_at       timestamptz,
  UNIQUE (id, terms)
);

CREATE UNIQUE INDEX callback_paths_live_idx ON callback_paths (path_key) WHERE released_at IS NULL;

ALTER TABLE wallets
  ADD COLUMN callback_path_id bigint,
  ADD COLUMN callback_terms text,
  ADD CONSTRAINT wallets_callback_path_claim FOREIGN KEY (callback_path_id, callback_terms) REFERENCES callback_paths (id, terms),
  ADD CONSTRAINT wallets_callback_path_pair CHECK ((callback_path_id IS NULL) = (callback_terms IS NULL));

CREATE INDEX wallets_callback_path_idx ON wallets (callback_path_id) WHERE callback_path_id IS NOT NULL;
