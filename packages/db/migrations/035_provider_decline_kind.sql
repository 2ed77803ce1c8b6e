-- Why a provider gave up on a payment, in the few kinds that change what a customer should try next
-- (issue 32: the second chance orders its choices by it). Written with provider_reason by the one writer
-- of provider statuses (ProviderStatusRepository.recordProviderStatus): a kind exactly when the provider
-- status is declined or failed (`other` when the provider documents no reason; declineKindOfReport in
-- @gateway/domain), null otherwise, and null on reports recorded before this migration.
-- The list is DECLINE_KINDS of packages/domain/src/decline-kinds.ts; a test compares them.
ALTER TABLE payments
  ADD COLUMN provider_decline_kind text
    CONSTRAINT payments_provider_decline_kind_check
    CHECK (provider_decline_kind IN ('card_refused', 'identity_failed', 'over_limit', 'country_unserved', 'abandoned', 'other')),
  ADD CONSTRAINT payments_provider_decline_kind_of_a_failure
    CHECK (provider_decline_kind IS NULL OR provider_status IN ('declined', 'failed'));
