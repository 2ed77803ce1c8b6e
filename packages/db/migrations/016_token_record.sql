-- Which token this database counts in, and a faster look at orphaned deposits.
--
-- chain_tokens  the (chain, token) every app of this database is configured with. Amounts are
--               stored in that token's base units (6 decimals), so apps configured with another
--               token must not run against it: the first app to boot records its token, and
--               every app refuses to boot with a token other than the one recorded (as hd_keys
--               does for the xpub, migration 009). The apps with an RPC also read decimals() from
--               the chain and refuse a token whose decimals are not 6.
-- deposits      the chain watcher looks up every orphaned deposit again each round until the
--               finalized block passes it; this index keeps that a look at the few orphans.

CREATE TABLE chain_tokens (
  chain_id       integer NOT NULL CHECK (chain_id > 0),
  -- Lower-case hex, as chain_cursors.token.
  address        text    NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
  registered_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain_id, address)
);

CREATE INDEX deposits_orphaned_idx ON deposits (chain_id, block_number) WHERE status = 'orphaned';
