import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { english, generateMnemonic } from 'viem/accounts';
import { xpubFromMnemonic } from '@gateway/chain';
import { appRoleName, DATABASE_APPS, DEFAULT_ROLE_PREFIX, isRolePrefix } from '@gateway/db/cli';
import { parseCommandArgs, toJson, UsageError, type CliIo } from '../cli';

const KEY_ID = /^[A-Za-z0-9_-]{1,16}$/;

/** A key id: the one given, else k<yyyymmdd>, so a rotation's new entry differs from the last. */
function keyId(given: string | undefined): string {
  const kid = given ?? `k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`;
  if (!KEY_ID.test(kid)) throw new UsageError('a key id holds letters, digits, _ and - (at most 16)');
  return kid;
}

/**
 * `gateway keys …`: new secrets, written to stdout only (never a log line, never a file): pipe them
 * into the secret store. Each is printed as the settings the apps read.
 */
export async function keysCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    prefix: { type: 'string' },
    'database-url': { type: 'string' },
  });
  const [kind, kid, ...rest] = positionals;
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  if (kind !== 'db-logins' && (values.prefix !== undefined || values['database-url'] !== undefined))
    throw new UsageError('--prefix and --database-url are for db-logins');
  let settings: Record<string, string>;
  switch (kind) {
    case 'seed':
      if (kid !== undefined) throw new UsageError(`unexpected argument ${kid}`);
      settings = seed();
      break;
    case 'sealing':
      // 32 random bytes: AES-256-GCM's key, as parseSealingKeys reads it.
      settings = { ADDRESS_IN_KEYS: `${keyId(kid)}:${randomBytes(32).toString('base64')}` };
      break;
    case 'callback':
      settings = callbackKeys(keyId(kid));
      break;
    case 'db-logins':
      if (kid !== undefined) throw new UsageError(`unexpected argument ${kid}`);
      return printLogins(io, values.prefix ?? DEFAULT_ROLE_PREFIX, values['database-url'], values.json === true);
    default:
      throw new UsageError(kind === undefined ? 'name the key: seed, sealing, callback or db-logins' : `no key kind ${kind}`);
  }
  io.out(
    values.json
      ? toJson(settings)
      : Object.entries(settings)
          .map(([name, value]) => `${name}=${value}`)
          .join('\n'),
  );
  return 0;
}

/** The temporary wallets' seed (24 words) for the settlement worker, its xpub for wallet-control. */
function seed(): Record<string, string> {
  const mnemonic = generateMnemonic(english, 256);
  return {
    SETTLEMENT_MNEMONIC: mnemonic,
    HD_XPUB: xpubFromMnemonic(mnemonic),
  };
}

/**
 * An Ed25519 key pair: the private half for the callback-worker, the public half for wallet-control,
 * which publishes it. To rotate, put the new entry first in both lists and drop the old one once
 * merchants have fetched the new public key.
 */
function callbackKeys(kid: string): Record<string, string> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    CALLBACK_SIGNING_KEYS: `${kid}:${privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64')}`,
    CALLBACK_PUBLIC_KEYS: `${kid}:${publicKey.export({ format: 'der', type: 'spki' }).toString('base64')}`,
  };
}

/**
 * A login user per app with a new password, a member of its app's role only (migration 014 creates
 * the roles): the SQL for the owner to run once, and each app's DATABASE_URL when a base URL is given.
 * NOINHERIT: the user has its role's privileges only while it is that role (the app's pool takes it
 * at connect), so a session that leaves it (SET ROLE NONE) can do nothing.
 */
function printLogins(io: CliIo, prefix: string, databaseUrl: string | undefined, json: boolean): number {
  if (!isRolePrefix(prefix)) throw new UsageError(`--prefix ${prefix}: lower-case letters, digits and _, at most 41`);
  if (databaseUrl !== undefined && !URL.canParse(databaseUrl)) throw new UsageError('--database-url is not a URL');
  const logins = DATABASE_APPS.map((app) => {
    const role = appRoleName(prefix, app);
    const user = `${role}_login`;
    // Hex: nothing to quote in SQL or to percent-encode in a URL.
    const password = randomBytes(24).toString('hex');
    const sql = `CREATE ROLE "${user}" LOGIN NOINHERIT PASSWORD '${password}' IN ROLE "${role}";`;
    let url: string | undefined;
    if (databaseUrl !== undefined) {
      const parsed = new URL(databaseUrl);
      parsed.username = user;
      parsed.password = password;
      url = parsed.toString();
    }
    return { app, role, user, password, sql, ...(url ? { databaseUrl: url } : {}) };
  });
  if (json) {
    io.out(toJson(logins));
    return 0;
  }
  io.out('-- run once as the owner (psql), then give each app its DATABASE_URL:');
  for (const login of logins) io.out(login.sql);
  for (const login of logins) if (login.databaseUrl) io.out(`# ${login.app}: DATABASE_URL=${login.databaseUrl}`);
  return 0;
}
