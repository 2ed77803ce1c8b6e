-- Merchant callbacks: one delivery per forwarded deposit, every attempt recorded. PostgreSQL is
-- the source of truth; Redis (BullMQ) only carries the deliveries in flight.

CREATE TABLE callback_deliveries (
  -- Also the BullMQ job id and the x-gateway-delivery-id header, so a delivery is never queued
  -- twice and a merchant can drop a duplicate.
  id                    uuid PRIMARY KEY,
  wallet_id             bigint NOT NULL REFERENCES wallets (id),
  -- One delivery per forwarded deposit (the deposits table adds its foreign key).
  deposit_id            bigint UNIQUE,
  -- USDC base units (6 decimals); the wire carries decimal strings.
  value_coin            numeric(78, 0) NOT NULL CHECK (value_coin > 0),
  value_forwarded_coin  numeric(78, 0) NOT NULL CHECK (value_forwarded_coin >= 0),
  fee_coin              numeric(78, 0) NOT NULL CHECK (fee_coin >= 0),
  txid_in               text NOT NULL,
  txid_out              text NOT NULL,
  status                text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempt_count         integer NOT NULL DEFAULT 0,
  next_attempt_at       timestamptz NOT NULL DEFAULT now(),
  created_at            timestamptz NOT NULL DEFAULT now(),
  delivered_at          timestamptz,
  last_error            text
);

CREATE INDEX callback_deliveries_due_idx ON callback_deliveries (next_attempt_at) WHERE status = 'pending';

CREATE TABLE callback_attempts (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id       uuid NOT NULL REFERENCES callback_deliveries (id),
  attempt_no        integer NOT NULL,
  started_at        timestamptz NOT NULL,
  duration_ms       integer NOT NULL,
  status_code       integer,
  error_code        text,
  error             text,
  -- First 1 KiB of the merchant's answer.
  response_excerpt  text,
  UNIQUE (delivery_id, attempt_no)
);
