-- Nothing parked unseen: held dust is swept with the next payout of its wallet, the reconciler and
-- its gauges read the deposits that owe settlement through indexes of their own, and the chain
-- watcher can tell the gateway's own transfers from customers' deposits.

-- held -> swept: a deposit below DUST_THRESHOLD is paid out by the payout of another deposit of
-- its wallet (its next deposit, or the held deposit an operator's sweep-dust chose), planned in
-- one transaction with it. swept_by_deposit_id names that deposit: its legs and its one callback
-- cover the sum.
ALTER TABLE deposits DROP CONSTRAINT deposits_status_check;
ALTER TABLE deposits
  ADD CONSTRAINT deposits_status_check
    CHECK (status IN ('seen', 'final', 'held', 'forwarding', 'forwarded', 'orphaned', 'needs_attention', 'swept')),
  ADD COLUMN swept_by_deposit_id bigint REFERENCES deposits (id),
  ADD CONSTRAINT deposits_swept_by_check CHECK ((status = 'swept') = (swept_by_deposit_id IS NOT NULL));

-- A wallet's held dust (planning a payout) and all of it (the held-dust gauges).
CREATE INDEX deposits_held_idx ON deposits (chain_id, wallet_id) INCLUDE (amount) WHERE status = 'held';
-- What a carrying deposit swept (its payable amount, on every resume).
CREATE INDEX deposits_swept_by_idx ON deposits (swept_by_deposit_id) WHERE status = 'swept';
-- The reconciler pages through the deposits owing settlement by id, and reports the age of the
-- oldest of them: both stay small (a deposit leaves them once forwarded).
CREATE INDEX deposits_owing_settlement_idx ON deposits (chain_id, id) WHERE status IN ('final', 'forwarding');
CREATE INDEX deposits_owing_settlement_since_idx ON deposits (chain_id, final_at) WHERE status IN ('final', 'forwarding');
-- A forwarded deposit whose fee or affiliate leg is still unpaid owes work too.
CREATE INDEX payouts_unpaid_idx ON payouts (deposit_id) WHERE status IN ('planned', 'signed', 'broadcast');

-- Addresses of the gateway itself besides the temporary wallets, registered by the settlement
-- worker at boot. USDC they send to a temporary wallet is the gateway moving its own money, never
-- a customer's deposit. Old entries stay: an address that was ours is still not a customer.
CREATE TABLE gateway_addresses (
  address        text NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
  role           text NOT NULL CHECK (role IN ('relayer', 'platform_fee')),
  registered_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (address, role)
);
