-- Paying the rest (issue 34): a customer whose order is underpaid pays what is missing into the
-- same wallet, through a provider whose minimum allows it. That payment is a new attempt for the
-- rest's amount, but the order is still judged against the whole order: the rest's row carries the
-- same expectation as the attempt it completes (expected_usdc, expected_basis, tolerance_bps,
-- amount_usd and usd_rate: the order's, not the rest's), with a window of its own (its provider
-- order is new). `completes` names that attempt, the order's own (never another rest), so the
-- order's amount and currency are read from it.
ALTER TABLE payments
  ADD COLUMN completes uuid REFERENCES payments (id),
  ADD CONSTRAINT payments_rest_of_an_order CHECK (completes IS NULL OR (completes <> id AND expected_usdc IS NOT NULL));
