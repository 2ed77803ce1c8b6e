-- Issue 32: who pays an order's fees, per wallet (Create Wallet's optional customer_pays_fee, which
-- the PayGate plugins never send): true, the customer pays the provider's fees on top where the
-- provider sells a fixed amount of USDC, so the shop receives the order's full value; false, the
-- fees stay inside the order amount; NULL, the operator's CUSTOMER_PAYS_FEES decides. Fixed with the
-- wallet, as its other terms (the wallet trigger refuses changing it).
ALTER TABLE wallets ADD COLUMN customer_pays_fee boolean;

-- The USDC an attempt's checkout asked its provider to deliver when the customer pays the fees on
-- top (a provider that sells a fixed amount); NULL for a checkout of the fiat amount, fees inside.
-- A renewed checkout of the payment (its customer's link) asks for the same amount again.
ALTER TABLE payments ADD COLUMN checkout_usdc numeric(78, 0) CHECK (checkout_usdc > 0);
