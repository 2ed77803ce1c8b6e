-- A payout leg that cannot succeed gets a name and a way out.
--
-- needs_attention: the token refuses a leg in a way no retry changes (a blacklisted recipient or
-- temporary wallet, an authorization cancelled by someone holding the wallet's key, a balance
-- short of the leg, or a revert settlement does not know). The leg, and its deposit while it is
-- forwarding, stop being sent and record why. An operator re-plans the deposit: the authorizations
-- not used are cancelled on chain, those legs become `cancelled` (kept for the record) and new
-- legs with fresh nonces take their place, each naming the leg it replaces.
-- The statuses and reasons are those of packages/domain/src/settlement-states.ts.

ALTER TABLE deposits DROP CONSTRAINT deposits_status_check;
ALTER TABLE deposits
  ADD CONSTRAINT deposits_status_check
    CHECK (status IN ('seen', 'final', 'held', 'forwarding', 'forwarded', 'orphaned', 'needs_attention')),
  ADD COLUMN attention_reason text CONSTRAINT deposits_attention_reason_check CHECK (attention_reason IN (
    'payout_address_blacklisted', 'fee_address_blacklisted', 'affiliate_address_blacklisted', 'temporary_wallet_blacklisted',
    'authorization_cancelled', 'insufficient_balance', 'transfer_reverted')),
  -- What the token said (its revert reason), for the operator.
  ADD COLUMN attention_detail text,
  ADD COLUMN attention_at timestamptz,
  -- Only a deposit waiting for a person carries a reason; a re-plan clears it (the legs keep theirs).
  ADD CONSTRAINT deposits_needs_attention_reason CHECK ((status = 'needs_attention') = (attention_reason IS NOT NULL));

CREATE INDEX deposits_needs_attention_idx ON deposits (id) WHERE status = 'needs_attention';

ALTER TABLE payouts DROP CONSTRAINT payouts_status_check;
-- A re-planned deposit keeps its cancelled legs beside the new ones: one active leg of each kind.
ALTER TABLE payouts DROP CONSTRAINT payouts_deposit_id_leg_key;
ALTER TABLE payouts
  ADD CONSTRAINT payouts_status_check
    CHECK (status IN ('planned', 'signed', 'broadcast', 'confirmed', 'needs_attention', 'cancelled')),
  ADD COLUMN attention_reason text CONSTRAINT payouts_attention_reason_check CHECK (attention_reason IN (
    'payout_address_blacklisted', 'fee_address_blacklisted', 'affiliate_address_blacklisted', 'temporary_wallet_blacklisted',
    'authorization_cancelled', 'insufficient_balance', 'transfer_reverted')),
  ADD COLUMN attention_detail text,
  ADD COLUMN attention_at timestamptz,
  ADD COLUMN cancelled_at timestamptz,
  -- The leg of the earlier plan this one took over from.
  ADD COLUMN replaces_payout_id bigint REFERENCES payouts (id),
  ADD CONSTRAINT payouts_needs_attention_reason CHECK (status <> 'needs_attention' OR attention_reason IS NOT NULL),
  ADD CONSTRAINT payouts_cancelled_at CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL));

CREATE UNIQUE INDEX payouts_active_leg_key ON payouts (deposit_id, leg) WHERE status <> 'cancelled';
CREATE INDEX payouts_needs_attention_idx ON payouts (deposit_id) WHERE status = 'needs_attention';

-- cancel: a relayer transaction carrying cancelAuthorization for a leg being re-planned.
ALTER TABLE payout_transactions DROP CONSTRAINT payout_transactions_reason_check;
ALTER TABLE payout_transactions
  ADD CONSTRAINT payout_transactions_reason_check CHECK (reason IN ('initial', 'fee-bump', 're-signed', 'new-nonce', 'cancel'));
