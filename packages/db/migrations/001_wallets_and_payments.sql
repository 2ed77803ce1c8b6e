-- Temporary receiving wallets and the payment intents opened on them.

CREATE SEQUENCE wallet_hd_index_seq AS bigint MINVALUE 0 START WITH 0;

CREATE TABLE wallets (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- Child index under the configured xpub (m/44'/60'/0'/0/<hd_index>). Indexes burnt by a lost
  -- insert race leave gaps; the chain side matches by address, so gaps are harmless. Unique
  -- through polygon_address (one index, one address), so it needs no index of its own.
  hd_index         bigint NOT NULL,
  -- Lower-case hex, the form Transfer logs are matched against.
  polygon_address  text   NOT NULL UNIQUE CHECK (polygon_address ~ '^0x[0-9a-f]{40}$'),
  -- Sealed with a random IV, opened rather than looked up: no index needed.
  address_in       text   NOT NULL,
  payout_address   text   NOT NULL CHECK (payout_address ~ '^0x[0-9a-f]{40}$'),
  callback_url     text   NOT NULL,
  -- sha256(lower(payout_address) || '\n' || callback_url): one wallet per pair, even under
  -- concurrent identical requests.
  dedupe_key       bytea  NOT NULL UNIQUE,
  ipn_token        text   NOT NULL UNIQUE,
  created_at       timestamptz NOT NULL DEFAULT now()
);

-- Addresses derived ahead of demand. Deriving a BIP-32 child costs ~1 ms of CPU, several times
-- the rest of Create Wallet, so a keeper derives them while the service is idle and a new wallet
-- claims one. Rows leave this table when claimed.
CREATE TABLE address_pool (
  hd_index         bigint PRIMARY KEY,
  -- EIP-55 checksummed, as derived, so a claimed address needs no second keccak.
  polygon_address  text   NOT NULL CHECK (polygon_address ~ '^0x[0-9a-fA-F]{40}$'),
  created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE payments (
  id            uuid PRIMARY KEY,
  wallet_id     bigint NOT NULL REFERENCES wallets (id),
  amount        numeric(20, 2) NOT NULL CHECK (amount > 0),
  currency      char(3) NOT NULL,
  provider      text NOT NULL,
  email         text NOT NULL,
  status        text NOT NULL DEFAULT 'redirected' CHECK (status IN ('redirected')),
  checkout_url  text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX payments_wallet_id_idx ON payments (wallet_id);
