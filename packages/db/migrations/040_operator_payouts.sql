-- Payouts by hand (issue 33): a deposit the gateway does not settle (the other USDC, held for the
-- operator) is paid to its merchant by the operator, from its temporary wallet, outside settlement.
-- `gateway deposits paid-by-hand` checks the transfer on chain and records it here, in the
-- transaction that moves the deposit held_for_operator → paid_by_operator
-- (packages/domain/src/settlement-states.ts, recordOperatorPayout).
--
-- operator_payouts    one row per deposit paid by hand: the Transfer log that paid it (its token,
--                     from the temporary wallet, to the payout address, the amount), the block it
--                     was final in, and whether it paid the merchant's share or the whole deposit.
--                     A transfer pays one deposit only (unique on chain, tx hash, log index).
-- the status          paid_by_operator joins deposits' statuses and the statuses a deposit of the
--                     other token may have (deposit_other_token_statuses, migration 023): still none
--                     that forwards or calls back.

CREATE TABLE operator_payouts (
  deposit_id    bigint  PRIMARY KEY REFERENCES deposits (id),
  chain_id      integer NOT NULL,
  tx_hash       text    NOT NULL CHECK (tx_hash ~ '^0x[0-9a-f]{64}$'),
  log_index     integer NOT NULL,
  block_number  bigint  NOT NULL,
  block_hash    text    NOT NULL CHECK (block_hash ~ '^0x[0-9a-f]{64}$'),
  token         text    NOT NULL CHECK (token ~ '^0x[0-9a-f]{40}$'),
  from_address  text    NOT NULL CHECK (from_address ~ '^0x[0-9a-f]{40}$'),
  to_address    text    NOT NULL CHECK (to_address ~ '^0x[0-9a-f]{40}$'),
  -- Token base units (6 decimals), never a float.
  amount        numeric(78, 0) NOT NULL CHECK (amount > 0),
  paid          text    NOT NULL CHECK (paid IN ('merchant_share', 'whole_deposit')),
  recorded_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (chain_id, tx_hash, log_index)
);

ALTER TABLE deposits DROP CONSTRAINT deposits_status_check;
ALTER TABLE deposits
  ADD CONSTRAINT deposits_status_check
    CHECK (status IN ('seen', 'final', 'held', 'forwarding', 'forwarded', 'orphaned', 'needs_attention', 'swept', 'held_for_operator',
                      'paid_by_operator'));

CREATE OR REPLACE FUNCTION deposit_other_token_statuses() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.token IS NOT NULL
     AND NEW.status NOT IN ('seen', 'final', 'orphaned', 'held_for_operator', 'paid_by_operator')
     AND NOT EXISTS (SELECT 1 FROM chain_tokens t WHERE t.chain_id = NEW.chain_id AND t.address = NEW.token) THEN
    RAISE EXCEPTION 'deposit % is in %, a token this gateway does not settle: it cannot be %', NEW.id, NEW.token, NEW.status
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;
