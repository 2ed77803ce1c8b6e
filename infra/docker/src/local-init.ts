// The compose stack's one-shot init (docker-compose.yml, service `init`): throw-away keys into the
// keys volume on first start, the test USDC on the local chain, the migrated database with a login
// user per app. Every app starts after it has exited 0, and reads what it needs from the volume
// through the *_FILE settings (one file per setting, named after it).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Address } from 'viem';
import {
  deployLocalSecondUsdc,
  deployLocalTestUsdc,
  hasContract,
  LOCAL_CHAIN_ID,
  localAccounts,
  loadOrCreateLocalKeys,
  prepareLocalDatabase,
  type LocalKeys,
} from './local-setup';

interface LocalInitSettings {
  /** A superuser's connection string (any database of the cluster). */
  adminUrl: string;
  database: string;
  rolePrefix: string;
  rpcUrl: string;
  chainId: number;
  /** The keys volume: keys.json and one file per app setting. */
  keysDir: string;
  /** The apps' Redis (no user): each app gets its own user's URL on it. */
  redisUrl: string;
}

function readLocalInitSettings(env: NodeJS.ProcessEnv): LocalInitSettings {
  const required = (name: string): string => {
    const value = env[name];
    if (!value) throw new Error(`${name} is not set`);
    return value;
  };
  const chainId = Number(env.CHAIN_ID ?? LOCAL_CHAIN_ID);
  if (!Number.isInteger(chainId) || chainId === 137) throw new Error(`CHAIN_ID must be a local chain's id, not ${env.CHAIN_ID}`);
  return {
    adminUrl: required('PG_ADMIN_URL'),
    database: env.LOCAL_DATABASE || 'gateway',
    rolePrefix: env.DATABASE_ROLE_PREFIX || 'gateway',
    rpcUrl: required('CHAIN_RPC_URL'),
    chainId,
    keysDir: required('LOCAL_KEYS_DIR'),
    redisUrl: required('LOCAL_REDIS_URL'),
  };
}

interface LocalInitResult {
  keysCreated: boolean;
  token: Address;
  /** True when the chain had no test USDC: the token was deployed and the database made anew. */
  freshChain: boolean;
  applied: string[];
}

/** Safe to run on every start: keys are made once, the token and the database only for a new chain. */
async function runLocalInit(settings: LocalInitSettings): Promise<LocalInitResult> {
  mkdirSync(settings.keysDir, { recursive: true });
  const { keys, created } = loadOrCreateLocalKeys(join(settings.keysDir, 'keys.json'));
  const tokenFile = join(settings.keysDir, 'USDC_TOKEN_ADDRESS');
  const previous = existsSync(tokenFile) ? (readFileSync(tokenFile, 'utf8').trim() as Address) : undefined;
  const freshChain = previous === undefined || !(await hasContract(settings.rpcUrl, previous));
  const token = freshChain ? await deployLocalTestUsdc(settings.rpcUrl, settings.chainId) : previous;
  // The second test USDC plays USDC.e (OTHER_USDC_TOKEN_ADDRESS): deployed with the chain, kept with it.
  const otherFile = join(settings.keysDir, 'OTHER_USDC_TOKEN_ADDRESS');
  const previousOther = !freshChain && existsSync(otherFile) ? (readFileSync(otherFile, 'utf8').trim() as Address) : undefined;
  const otherToken =
    previousOther !== undefined && (await hasContract(settings.rpcUrl, previousOther))
      ? previousOther
      : await deployLocalSecondUsdc(settings.rpcUrl, settings.chainId);
  const { applied } = await prepareLocalDatabase({
    adminUrl: settings.adminUrl,
    database: settings.database,
    rolePrefix: settings.rolePrefix,
    // The chain starts empty after it restarts, so the database does too: old cursors and deposits would lie.
    fresh: freshChain,
  });
  writeSettingFiles(settings.keysDir, keys, token, otherToken);
  writeRedisUrlFiles(settings.keysDir, settings.redisUrl);
  return { keysCreated: created, token, freshChain, applied };
}

/** One file per setting, each app reading its own through `<SETTING>_FILE`. */
function writeSettingFiles(dir: string, keys: LocalKeys, token: Address, otherToken: Address): void {
  const { kid, privatePkcs8, publicSpki } = keys.callbackSigningKey;
  const settings: Record<string, string> = {
    ADDRESS_IN_KEYS: keys.addressInKeys,
    HD_XPUB: keys.xpub,
    SETTLEMENT_MNEMONIC: keys.mnemonic,
    SANDBOX_SIGNING_SECRET: keys.sandboxSigningSecret,
    CALLBACK_SIGNING_KEYS: `${kid}:${privatePkcs8}`,
    CALLBACK_PUBLIC_KEYS: `${kid}:${publicSpki}`,
    CALLBACK_PUBLIC_SPKI: publicSpki,
    RELAYER_PRIVATE_KEY: localAccounts.relayer.privateKey,
    SANDBOX_FUNDER_PRIVATE_KEY: localAccounts.sandboxFunder.privateKey,
    PLATFORM_FEE_ADDRESS: localAccounts.platformFee.address,
    USDC_TOKEN_ADDRESS: token,
    OTHER_USDC_TOKEN_ADDRESS: otherToken,
  };
  for (const [name, value] of Object.entries(settings)) writeFileSync(join(dir, name), `${value}\n`, { mode: 0o600 });
}

// The apps that connect to Redis, each as the ACL user `gw-<app>` (REDIS_PREFIX gw) that the
// compose service redis-acl makes from these files (`gateway redis acl --apply`).
const REDIS_APPS = ['wallet-control', 'payment-redirect', 'chain-watcher', 'settlement-worker', 'callback-worker'];

/** `<APP>_REDIS_URL`: each app's own user on the compose Redis, with a new throw-away password on each start. */
function writeRedisUrlFiles(dir: string, redisUrl: string): void {
  for (const app of REDIS_APPS) {
    const url = new URL(redisUrl);
    url.username = `gw-${app}`;
    url.password = randomBytes(18).toString('base64url');
    writeFileSync(join(dir, `${app.toUpperCase().replaceAll('-', '_')}_REDIS_URL`), `${url}\n`, { mode: 0o600 });
  }
}

async function main(): Promise<void> {
  const settings = readLocalInitSettings(process.env);
  const result = await runLocalInit(settings);
  console.log(result.keysCreated ? `generated throw-away local keys in ${settings.keysDir}` : `kept the local keys in ${settings.keysDir}`);
  console.log(
    result.freshChain
      ? `new chain: test USDC deployed at ${result.token}, 1,000,000 minted to ${localAccounts.customer.address} and to the sandbox; ` +
          `database ${settings.database} made anew`
      : `chain kept: test USDC at ${result.token}; database ${settings.database} kept`,
  );
  console.log(result.applied.length > 0 ? `migrations applied: ${result.applied.join(', ')}` : 'database schema is up to date');
}

main().catch((error: Error) => {
  console.error(`local init failed: ${error.message}`);
  process.exit(1);
});
