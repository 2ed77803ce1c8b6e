-- One claim for every spelling of a path a shop's server runs one handler for (issue 35).
--
-- Migration 017 keyed a callback path's claim by callbackOriginPath (@gateway/domain), which kept
-- the path's case, a trailing slash, `;` parameters, doubled slashes and a trailing index file: so
-- `/ipn/`, `//ipn`, `/IPN`, `/ipn;x` and `/ipn/index.php` were each a claim of their own, and a
-- stranger could have a wallet on one of them while the shop's server ran its `/ipn` handler for
-- it. callbackOriginPath now reads the path as those servers do (see its comment); this migration
-- recomputes every stored claim (path_key and callback_path, released ones too) with that rule, in
-- its code step (rekeyCallbackPaths in src/callback-path-rekey.ts, in this transaction: the rule
-- is the TypeScript one, computed nowhere else; the database never computes a path key).
--
-- Live claims that become one: the first (oldest, lowest id) stays the path's claim, exactly as
-- the rule would have decided had it been in force; every later one is released (released_at =
-- the migration's time), as `gateway callbacks release --path` would release it. The wallets of a
-- released claim whose terms are the first claim's (the shop's own wallets on another spelling)
-- keep their callbacks, and new wallets of those terms take the first claim. The wallets of a
-- released claim with other terms (a stranger on a spelling of the shop's path: the hijack this
-- closes) have their callbacks released, as migration 013 released later wallets on one URL:
-- their payments are still forwarded to their payout addresses, their callbacks stop. The operator
-- finds them with `gateway callbacks release --list` (released_at = the migration's time); where
-- the later one was the shop's, they release the first claim's path and ask the shop for a new
-- callback URL for the later one's orders. The migration never fails on such data.
--
-- callback_path_rekeys   each claim's recomputed key and path, filled by the code step, gone at
--                        commit.

CREATE TEMPORARY TABLE callback_path_rekeys (
  id             bigint PRIMARY KEY,
  path_key       bytea NOT NULL,
  callback_path  text NOT NULL
) ON COMMIT DROP;
