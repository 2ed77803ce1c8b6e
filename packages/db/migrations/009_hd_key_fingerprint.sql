-- Which HD key derived the temporary wallets. A replica (or a tool) configured with another xpub
-- would hand out addresses the settlement seed cannot sign for, and nobody would know until
-- customers had paid into them: the key is registered once, recorded with each wallet, and every
-- app that derives or signs refuses to boot with a key the database does not know.

CREATE TABLE hd_keys (
  -- BIP-32 fingerprint of the xpub's key (m/44'/60'/0'/0): first 4 bytes of HASH160, hex.
  fingerprint    text PRIMARY KEY CHECK (fingerprint ~ '^[0-9a-f]{8}$'),
  registered_at  timestamptz NOT NULL DEFAULT now()
);

-- Null for wallets created before fingerprints were recorded.
ALTER TABLE wallets ADD COLUMN key_fingerprint text CHECK (key_fingerprint ~ '^[0-9a-f]{8}$');

-- Addresses are derived on the spot now (libsecp256k1, ~50 µs): the pre-derived pool is gone.
-- Its unclaimed rows were never handed out; their HD indexes simply stay unused.
DROP TABLE address_pool;
