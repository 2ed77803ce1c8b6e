-- The hosted checkout's ranking (issue 32) measures each provider's recent checkouts on every page
-- load (cached briefly): the payments given a checkout within the last CHECKOUT_RANKING_WINDOW_DAYS,
-- with their wallets, whose deposits and other attempts are then read by the wallet indexes
-- (CheckoutMeasureRepository). Without this, that window is a scan of every payment ever made.
CREATE INDEX payments_checkout_created_idx ON payments (created_at) INCLUDE (wallet_id) WHERE status = 'redirected';
