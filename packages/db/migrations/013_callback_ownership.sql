-- A callback URL belongs to the first wallet registered with it (issue 17).
--
-- Until now a wallet was keyed by (payout address, callback URL), so anyone could register a
-- shop's callback URL with their own payout address, pay that wallet, and have the shop receive a
-- validly signed "paid" callback for money that went to them. From here the callback URL, byte for
-- byte, is the wallet's identity among wallets whose callback is live: a second live wallet with
-- the same URL is refused by a unique index (concurrent requests: one wins, the others wait for it
-- and find its row). Only the operator frees a URL (`release-callback` in wallet-control): the
-- wallet then keeps its address, payout and split, and its payments are still forwarded, but it
-- never calls that URL again (the callback-worker fails its deliveries with `callback_released`),
-- and the URL can be registered again.
--
-- callback_url_key   sha256 of the URL's bytes: a btree entry cannot hold a 2,048-character URL,
--                    and a hash compares the exact bytes. IMMUTABLE is true for a database whose
--                    encoding is fixed (convert_to to UTF8 of UTF8 text is the identity).
-- callback_released_at  set by release-callback; null while the wallet owns its callback.
-- dedupe_key         the (payout, callback) key stays unique, so wallet-control replicas still
--                    running the code before this migration keep answering repeats; a released
--                    wallet gives its key up (null), so the same pair can make a new wallet.

CREATE FUNCTION callback_url_key(url text) RETURNS bytea
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN sha256(convert_to(url, 'UTF8'));

ALTER TABLE wallets
  ADD COLUMN callback_released_at timestamptz,
  ALTER COLUMN dedupe_key DROP NOT NULL,
  ADD CONSTRAINT wallets_live_has_dedupe_key CHECK (dedupe_key IS NOT NULL OR callback_released_at IS NOT NULL);

-- Wallets that already share a callback URL (registered before this rule): the first one
-- registered (lowest id) keeps it, exactly as the rule would have decided; every later one is
-- released now, as the operator's command would release it. Their payments are still forwarded to
-- their payout addresses; their callbacks stop, because a later wallet on a shop's URL is exactly
-- what the hijack looked like. The migration never fails on such data. The operator finds them with
-- `pnpm --filter @gateway/wallet-control release-callback --list` (released_at = the migration's
-- time) and, where a later wallet was the shop's own (it changed its payout address), releases the
-- first one and asks the shop to use a new callback URL for the later one's orders.
UPDATE wallets w
SET callback_released_at = now(), dedupe_key = NULL
WHERE EXISTS (
  SELECT 1 FROM wallets first
  WHERE callback_url_key(first.callback_url) = callback_url_key(w.callback_url)
    AND first.callback_url = w.callback_url
    AND first.id < w.id);

CREATE UNIQUE INDEX wallets_callback_owner_idx ON wallets (callback_url_key(callback_url)) WHERE callback_released_at IS NULL;
