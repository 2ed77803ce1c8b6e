-- The other USDC (issue 23): Polygon PoS has native USDC and USDC.e, and an aggregator delivers
-- whichever its vendor sends. The chain watcher follows both (one eth_getLogs with both
-- addresses) and records which token each deposit is in; a final deposit of the token the gateway
-- does not settle is held for the operator (OTHER_USDC_DEPOSITS=hold), never forwarded and never
-- called back as USDC. The statuses and the move are those of packages/domain/src/settlement-states.ts.
--
-- deposits.token       the token contract of the Transfer (lower-case hex). Every deposit the
--                      watcher writes names it; rows written before this migration are filled in
--                      with the token their database counts in (chain_tokens). NULL only in rows
--                      that no app wrote (tests, hand-made fixtures): read as the counted token.
-- held_for_operator    final → held_for_operator: a deposit of the other token, waiting for a
--                      person (the customer paid; the merchant is not paid yet).
-- the trigger          a deposit whose token is not the one chain_tokens records for its chain
--                      has only the statuses OTHER_TOKEN_DEPOSIT_STATUSES lists: no code path can
--                      plan, forward, sweep or call back a deposit of the other token.

ALTER TABLE deposits
  ADD COLUMN token text CONSTRAINT deposits_token_check CHECK (token ~ '^0x[0-9a-f]{40}$');

UPDATE deposits d SET token = t.address FROM chain_tokens t WHERE t.chain_id = d.chain_id AND d.token IS NULL;

ALTER TABLE deposits DROP CONSTRAINT deposits_status_check;
ALTER TABLE deposits
  ADD CONSTRAINT deposits_status_check
    CHECK (status IN ('seen', 'final', 'held', 'forwarding', 'forwarded', 'orphaned', 'needs_attention', 'swept', 'held_for_operator'));

-- The held-for-operator gauges (count and amount) read only the held deposits.
CREATE INDEX deposits_held_for_operator_idx ON deposits (chain_id) INCLUDE (amount, token) WHERE status = 'held_for_operator';

CREATE FUNCTION deposit_other_token_statuses() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.token IS NOT NULL
     AND NEW.status NOT IN ('seen', 'final', 'orphaned', 'held_for_operator')
     AND NOT EXISTS (SELECT 1 FROM chain_tokens t WHERE t.chain_id = NEW.chain_id AND t.address = NEW.token) THEN
    RAISE EXCEPTION 'deposit % is in %, a token this gateway does not settle: it cannot be %', NEW.id, NEW.token, NEW.status
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER deposits_other_token_statuses
  BEFORE INSERT OR UPDATE OF status, token ON deposits
  FOR EACH ROW EXECUTE FUNCTION deposit_other_token_statuses();
