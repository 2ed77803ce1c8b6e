-- The order (issue 34): a wallet is one order, and each Process Payment attempt records what it
-- should bring. Readers classify the order from its final deposits against its latest attempt's
-- expectation (domain's order-state.ts), so every figure needed to judge it is recorded here, as
-- it was at the attempt: a later change of a rate, a provider's fees or a setting re-judges nothing.
ALTER TABLE payments
  -- The order's USD value at the attempt's rate (the amount itself for USD), and that rate: units of
  -- the currency per 1 USD, its source and the time the source gave it.
  ADD COLUMN amount_usd      numeric(20, 2) CHECK (amount_usd > 0),
  ADD COLUMN usd_rate        text,
  ADD COLUMN usd_rate_source text,
  ADD COLUMN usd_rate_as_of  timestamptz,
  -- The USDC the provider should deliver, from its quote or estimated from its documented fees.
  ADD COLUMN expected_usdc   numeric(78, 0) CHECK (expected_usdc >= 0),
  ADD COLUMN expected_basis  text CHECK (expected_basis IN ('quote', 'estimate')),
  -- How far from expected_usdc still counts as paid: ORDER_TOLERANCE_BPS, or derived from the fee range.
  ADD COLUMN tolerance_bps   integer CHECK (tolerance_bps BETWEEN 0 AND 5000),
  -- When the provider order was created plus ORDER_WINDOW_HOURS: a deposit seen after it is late.
  ADD COLUMN window_ends_at  timestamptz,
  ADD CONSTRAINT payments_expectation_whole CHECK (
    (expected_usdc IS NULL) = (expected_basis IS NULL)
    AND (expected_usdc IS NULL) = (tolerance_bps IS NULL)
    AND (expected_usdc IS NULL) = (window_ends_at IS NULL)
    AND (expected_usdc IS NULL) = (amount_usd IS NULL));

-- A merchant may judge its orders more strictly than the operator (Create Wallet's optional
-- order_tolerance_bps, which the PayGate plugins never send): fixed with the wallet, as its other terms.
ALTER TABLE wallets
  ADD COLUMN order_tolerance_bps integer CHECK (order_tolerance_bps BETWEEN 0 AND 5000);

-- What a callback says of its order, as it stood when its deposit was forwarded: the same signed
-- figures on every attempt and every resend. NULL expected/state: no attempt recorded an expectation.
ALTER TABLE callback_deliveries
  ADD COLUMN order_total_coin    numeric(78, 0) CHECK (order_total_coin >= 0),
  ADD COLUMN order_expected_coin numeric(78, 0) CHECK (order_expected_coin >= 0),
  ADD COLUMN order_state         text CHECK (order_state IN ('awaiting', 'paid', 'underpaid', 'overpaid', 'late')),
  ADD CONSTRAINT callback_deliveries_order_whole CHECK ((order_expected_coin IS NULL) = (order_state IS NULL));
