-- Settlement: forwarding final deposits to the payout wallet (less the fee), exactly once.
--
-- payouts               one row per leg of a deposit (merchant, platform fee, affiliate), planned
--                       in the transaction that moves the deposit final -> forwarding, before any
--                       signature exists. Its EIP-3009 authorization nonce never changes, so the
--                       token lets at most one transfer of that leg happen, however many relayer
--                       transactions carry it.
-- payout_transactions   every relayer transaction signed for a leg (first send, fee bumps,
--                       re-signed authorizations), written BEFORE it is broadcast.
-- relayer_nonces        the next nonce of each relayer account, allocated under a row lock.

ALTER TABLE wallets
  ADD COLUMN affiliate_address text CHECK (affiliate_address ~ '^0x[0-9a-f]{40}$'),
  -- Basis points of each deposit paid to the affiliate, beside the platform fee.
  ADD COLUMN affiliate_fee_bps integer CHECK (affiliate_fee_bps BETWEEN 0 AND 10000),
  ADD CONSTRAINT wallets_affiliate_pair CHECK ((affiliate_address IS NULL) = (affiliate_fee_bps IS NULL));

ALTER TABLE deposits
  ADD COLUMN held_at timestamptz;

CREATE TABLE payouts (
  id                   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  deposit_id           bigint NOT NULL REFERENCES deposits (id),
  leg                  text   NOT NULL CHECK (leg IN ('merchant', 'platform', 'affiliate')),
  -- The temporary wallet (the authorizer) and the recipient, lower-case hex.
  from_address         text   NOT NULL CHECK (from_address ~ '^0x[0-9a-f]{40}$'),
  to_address           text   NOT NULL CHECK (to_address ~ '^0x[0-9a-f]{40}$'),
  -- Token base units.
  amount               numeric(78, 0) NOT NULL CHECK (amount > 0),
  authorization_nonce  text   NOT NULL CHECK (authorization_nonce ~ '^0x[0-9a-f]{64}$'),
  valid_after          numeric(78, 0) NOT NULL DEFAULT 0,
  -- Unix seconds; renewed (with a new signature, same nonce) if it passes before the leg is paid.
  valid_before         numeric(78, 0) NOT NULL,
  -- 65-byte EIP-712 signature of the temporary wallet; null until signed.
  signature            text   CHECK (signature ~ '^0x[0-9a-f]{130}$'),
  -- planned -> signed -> broadcast -> confirmed
  status               text   NOT NULL DEFAULT 'planned' CHECK (status IN ('planned', 'signed', 'broadcast', 'confirmed')),
  -- The transaction that used the authorization, once confirmed.
  tx_hash              text   CHECK (tx_hash ~ '^0x[0-9a-f]{64}$'),
  block_number         bigint,
  created_at           timestamptz NOT NULL DEFAULT now(),
  confirmed_at         timestamptz,
  UNIQUE (deposit_id, leg),
  UNIQUE (from_address, authorization_nonce),
  CHECK ((status = 'confirmed') = (tx_hash IS NOT NULL))
);

CREATE TABLE payout_transactions (
  id                        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  payout_id                 bigint NOT NULL REFERENCES payouts (id),
  chain_id                  integer NOT NULL,
  relayer_address           text   NOT NULL CHECK (relayer_address ~ '^0x[0-9a-f]{40}$'),
  relayer_nonce             bigint NOT NULL CHECK (relayer_nonce >= 0),
  tx_hash                   text   NOT NULL UNIQUE CHECK (tx_hash ~ '^0x[0-9a-f]{64}$'),
  -- The signed transaction exactly as broadcast, so it can be sent again after a crash or a drop.
  raw_tx                    text   NOT NULL CHECK (raw_tx ~ '^0x[0-9a-f]+$'),
  gas_limit                 numeric(78, 0) NOT NULL,
  max_fee_per_gas           numeric(78, 0) NOT NULL,
  max_priority_fee_per_gas  numeric(78, 0) NOT NULL,
  -- initial: first transaction of the leg; fee-bump: replaces a stuck one (same relayer nonce);
  -- re-signed: carries a renewed authorization (same relayer nonce); new-nonce: the previous
  -- relayer nonce was spent without paying the leg (a revert).
  reason                    text   NOT NULL CHECK (reason IN ('initial', 'fee-bump', 're-signed', 'new-nonce')),
  -- recorded (not yet known to be sent) -> sent -> mined | reverted | replaced
  status                    text   NOT NULL DEFAULT 'recorded' CHECK (status IN ('recorded', 'sent', 'mined', 'reverted', 'replaced')),
  created_at                timestamptz NOT NULL DEFAULT now(),
  sent_at                   timestamptz
);

CREATE INDEX payout_transactions_payout_idx ON payout_transactions (payout_id, id);
-- A relayer nonce is shared only by transactions of one leg (replacements), never by two legs.
CREATE INDEX payout_transactions_relayer_nonce_idx ON payout_transactions (chain_id, relayer_address, relayer_nonce);

CREATE TABLE relayer_nonces (
  chain_id         integer NOT NULL,
  relayer_address  text    NOT NULL CHECK (relayer_address ~ '^0x[0-9a-f]{40}$'),
  -- The lowest nonce no recorded transaction holds yet.
  next_nonce       bigint  NOT NULL CHECK (next_nonce >= 0),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain_id, relayer_address)
);
