-- What the chain watcher sees: USDC Transfer logs into temporary wallets, and where it stopped.

CREATE TABLE chain_cursors (
  chain_id      integer NOT NULL,
  token         text    NOT NULL CHECK (token ~ '^0x[0-9a-f]{40}$'),
  -- Last block fully processed, and its hash: a different hash at that height on restart is a reorg.
  block_number  bigint  NOT NULL,
  block_hash    text    NOT NULL,
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain_id, token)
);

CREATE TABLE deposits (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  chain_id      integer NOT NULL,
  tx_hash       text    NOT NULL CHECK (tx_hash ~ '^0x[0-9a-f]{64}$'),
  log_index     integer NOT NULL,
  block_number  bigint  NOT NULL,
  block_hash    text    NOT NULL,
  wallet_id     bigint  NOT NULL REFERENCES wallets (id),
  from_address  text    NOT NULL,
  -- Token base units (6 decimals), never a float.
  amount        numeric(78, 0) NOT NULL CHECK (amount > 0),
  -- seen → final → forwarding → forwarded; held (below the dust threshold); orphaned (reorged away).
  status        text NOT NULL DEFAULT 'seen'
                CHECK (status IN ('seen', 'final', 'held', 'forwarding', 'forwarded', 'orphaned')),
  seen_at       timestamptz NOT NULL DEFAULT now(),
  final_at      timestamptz,
  forwarded_at  timestamptz,
  UNIQUE (chain_id, tx_hash, log_index)
);

CREATE INDEX deposits_open_idx ON deposits (chain_id, block_number) WHERE status IN ('seen', 'final', 'forwarding');
CREATE INDEX deposits_wallet_idx ON deposits (wallet_id);

ALTER TABLE callback_deliveries
  ADD CONSTRAINT callback_deliveries_deposit_fk FOREIGN KEY (deposit_id) REFERENCES deposits (id);
