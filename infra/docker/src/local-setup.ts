// What every local stack sets up before its apps start, whether `pnpm demo` on the host
// (scripts/local-stack.ts) or `docker compose up` (the init service, local-init.ts): throw-away
// keys, a migrated database with a login user per app, and the test USDC on a local chain.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Client } from 'pg';
import { createPublicClient, http, type Address } from 'viem';
import { english, generateMnemonic } from 'viem/accounts';
import { deployTestUsdc, mintTestUsdc, xpubFromMnemonic } from '@gateway/chain';
import { createPool, ensureAppLoginUsers, migrate, type DatabaseApp } from '@gateway/db';
import { anvilAccounts } from '@gateway/testkit';

/**
 * Anvil's own chain id, never Polygon's 137: nothing signed here is valid on mainnet, and the
 * sandbox provider refuses to run against 137.
 */
export const LOCAL_CHAIN_ID = 31337;

/**
 * The local stack's roles among anvil's public accounts: fine on a throw-away chain, refused by
 * every app in production. The sandbox pays from an account of its own, so a test payment from the
 * customer account never races it for a nonce.
 */
const [deployer, customer, relayer, platformFee, sandboxFunder] = anvilAccounts;
export const localAccounts = { deployer, customer, relayer, platformFee, sandboxFunder };

/** Test USDC minted to the customer account and to the sandbox's account: 1,000,000 each. */
export const LOCAL_MINT_USDC = 1_000_000n;

export interface LocalKeys {
  addressInKeys: string;
  mnemonic: string;
  xpub: string;
  sandboxSigningSecret: string;
  callbackSigningKey: { kid: string; privatePkcs8: string; publicSpki: string };
}

/** The keys in `file` if it holds a complete set, else a new set written there (mode 0600). */
export function loadOrCreateLocalKeys(file: string): { keys: LocalKeys; created: boolean } {
  if (existsSync(file)) {
    const keys = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalKeys>;
    if (keys.callbackSigningKey) return { keys: keys as LocalKeys, created: false };
  }
  const mnemonic = generateMnemonic(english);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const keys: LocalKeys = {
    addressInKeys: `local1:${randomBytes(32).toString('base64')}`,
    mnemonic,
    xpub: xpubFromMnemonic(mnemonic),
    sandboxSigningSecret: randomBytes(32).toString('base64'),
    callbackSigningKey: {
      kid: 'local1',
      privatePkcs8: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
      publicSpki: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    },
  };
  writeFileSync(file, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  return { keys, created: true };
}

export interface LocalDatabaseOptions {
  /** A superuser's connection to any database of the cluster (creates the database and the login users). */
  adminUrl: string;
  database: string;
  rolePrefix: string;
  /** Drop the database first: a new chain makes old cursors and deposits lie. */
  fresh: boolean;
  /** The sandbox provider's schema; its login user may create it (and owns it), nothing of the gateway's. */
  sandboxSchema?: string;
}

export type LocalDatabaseUrls = Record<DatabaseApp | 'sandbox', string>;

/**
 * The database (created if missing, or anew when `fresh`), migrated as the owner (which creates the
 * apps' roles if this cluster has none yet); then each app gets a login user that is a member of its
 * role only, and the sandbox one that may create its schema. Safe to run again. Returns each
 * one's connection string.
 */
export async function prepareLocalDatabase(
  options: LocalDatabaseOptions,
): Promise<{ ownerUrl: string; apps: LocalDatabaseUrls; applied: string[] }> {
  const { adminUrl, database, rolePrefix } = options;
  const ownerUrl = withDatabase(adminUrl, database);
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    if (options.fresh) await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (rowCount === 0) await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
  const pool = createPool({ connectionString: ownerUrl, max: 1, applicationName: 'local-setup' });
  try {
    const applied = await migrate(pool, 'public', { rolePrefix });
    const sandboxUser = `${rolePrefix}_sandbox_provider_login`;
    await pool.query(`DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${sandboxUser}') THEN CREATE ROLE "${sandboxUser}" LOGIN; END IF;
      EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
      END $$`);
    await pool.query(`GRANT CREATE ON DATABASE "${database}" TO "${sandboxUser}"`);
    const sandbox = new URL(ownerUrl);
    sandbox.username = sandboxUser;
    const apps = { ...(await ensureAppLoginUsers(adminUrl, ownerUrl, rolePrefix)), sandbox: sandbox.toString() };
    return { ownerUrl, apps, applied };
  } finally {
    await pool.end();
  }
}

/** `url` with its database (the path) replaced. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Deploys the test USDC and mints {@link LOCAL_MINT_USDC} to the customer and to the sandbox's account. */
export async function deployLocalTestUsdc(rpcUrl: string, chainId = LOCAL_CHAIN_ID): Promise<Address> {
  const token = await deployTestUsdc({ rpcUrl, chainId, deployerKey: deployer.privateKey });
  for (const holder of [customer, sandboxFunder]) {
    await mintTestUsdc({ rpcUrl, chainId, token, ownerKey: deployer.privateKey, to: holder.address, amount: LOCAL_MINT_USDC * 10n ** 6n });
  }
  return token;
}

/**
 * Deploys a second test USDC that plays the other Polygon USDC (USDC.e: OTHER_USDC_TOKEN_ADDRESS)
 * and mints {@link LOCAL_MINT_USDC} of it to the customer, who can send it by hand to a temporary
 * wallet to see a deposit held for the operator.
 */
export async function deployLocalSecondUsdc(rpcUrl: string, chainId = LOCAL_CHAIN_ID): Promise<Address> {
  const token = await deployTestUsdc({ rpcUrl, chainId, deployerKey: deployer.privateKey });
  await mintTestUsdc({ rpcUrl, chainId, token, ownerKey: deployer.privateKey, to: customer.address, amount: LOCAL_MINT_USDC * 10n ** 6n });
  return token;
}

/** Whether the chain at `rpcUrl` has a contract at `address` (a chain restarted since has none). */
export async function hasContract(rpcUrl: string, address: Address): Promise<boolean> {
  const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) });
  const code = await client.getCode({ address });
  return code !== undefined && code !== '0x';
}
