import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { english, generateMnemonic } from 'viem/accounts';
import { xpubFromMnemonic } from '@gateway/chain';
import { appRoleName, DATABASE_APPS, DEFAULT_ROLE_PREFIX, isRolePrefix } from '@gateway/db/cli';
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { CommandFailed, parseCommandArgs, toJson, UsageError, type CliIo } from '../command-kit';
import { writeSecretFile } from '../secret-file';

const KEY_ID = /^[A-Za-z0-9_-]{1,16}$/;

/** A key id: the one given, else k<yyyymmdd>, so a rotation's new entry differs from the last. */
function keyId(given: string | undefined): string {
  const kid = given ?? `k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`;
  if (!KEY_ID.test(kid)) throw new UsageError('a key id holds letters, digits, _ and - (at most 16)');
  return kid;
}

/**
 * `gateway keys …`: new secrets, never a log line: to stdout (pipe them into the secret store), or
 * with `--out FILE` to a new file only its owner can read (writeSecretFile; `--force` replaces an
 * existing one), or with `--out-dir DIR` one such file per setting. Each is written as the
 * settings the apps read.
 */
export async function keysCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    prefix: { type: 'string' },
    'database-url': { type: 'string' },
    out: { type: 'string' },
    'out-dir': { type: 'string' },
    force: { type: 'boolean' },
  });
  const [kind, kid, ...rest] = positionals;
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  if (kind !== 'db-logins' && (values.prefix !== undefined || values['database-url'] !== undefined))
    throw new UsageError('--prefix and --database-url are for db-logins');
  const target: Target = { out: values.out, outDir: values['out-dir'], force: values.force === true };
  if (target.out !== undefined && target.outDir !== undefined) throw new UsageError('--out or --out-dir, not both');
  if (target.force && target.out === undefined && target.outDir === undefined)
    throw new UsageError('--force replaces the files of --out or --out-dir');
  if (target.out === '' || target.outDir === '') throw new UsageError('--out and --out-dir need a name');
  const json = values.json === true;
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
    case 'admin':
      if (kid !== undefined) throw new UsageError(`unexpected argument ${kid}`);
      // 32 random bytes, 43 characters: over ADMIN_TOKEN's minimum of 32, nothing to quote in a header or a shell.
      settings = { ADMIN_TOKEN: randomBytes(32).toString('base64url') };
      break;
    case 'db-logins': {
      if (kid !== undefined) throw new UsageError(`unexpected argument ${kid}`);
      if (target.outDir !== undefined) throw new UsageError('--out-dir is for settings; give db-logins --out <file>');
      const logins = dbLogins(values.prefix ?? DEFAULT_ROLE_PREFIX, values['database-url']);
      return emit(io, json ? toJson(logins) : loginsText(logins), { json, target, names: ['logins'] });
    }
    default:
      throw new UsageError(kind === undefined ? 'name the key: seed, sealing, callback, admin or db-logins' : `no key kind ${kind}`);
  }
  if (target.outDir !== undefined) return emitFiles(io, settings, target.outDir, target.force, json);
  const text = json
    ? toJson(settings)
    : Object.entries(settings)
        .map(([name, value]) => `${name}=${value}`)
        .join('\n');
  return emit(io, text, { json, target, names: Object.keys(settings) });
}

/** Where the secrets go instead of stdout: a file, or a folder of one file per setting; `force` replaces what is there. */
interface Target {
  out?: string;
  outDir?: string;
  force: boolean;
}

/** The secrets to stdout, or to the file of --out (mode 0600) with only their names on stdout. */
function emit(io: CliIo, text: string, { json, target, names }: { json: boolean; target: Target; names: string[] }): number {
  if (target.out === undefined) {
    io.out(text);
    return 0;
  }
  writeSecretFile(target.out, `${text}\n`, target.force);
  io.out(json ? toJson({ file: target.out, mode: '0600', settings: names }) : `${names.join(', ')} written to ${target.out} (mode 0600)`);
  return 0;
}

/**
 * Each setting's bare value to a file of its own in `dir`, named as the setting in lower case: the
 * names docker-compose.production.yml mounts as `<NAME>_FILE`. Without `force`, nothing is written
 * unless every file is new (a seed's mnemonic and xpub must never come from two runs).
 */
function emitFiles(io: CliIo, settings: Record<string, string>, dir: string, force: boolean, json: boolean): number {
  const files = Object.entries(settings).map(([name, value]) => ({ value, file: join(dir, name.toLowerCase()) }));
  const present = force ? undefined : files.find(({ file }) => existsSync(file) || isLink(file));
  if (present) throw new CommandFailed(`${present.file} exists; give a new folder, or --force to replace its files`);
  for (const { file, value } of files) writeSecretFile(file, `${value}\n`, force);
  const written = files.map(({ file }) => file);
  io.out(
    json
      ? toJson({ files: written, mode: '0600', settings: Object.keys(settings) })
      : `${Object.keys(settings).join(', ')} written to ${written.join(', ')} (mode 0600)`,
  );
  return 0;
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
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
interface DbLogin {
  app: string;
  role: string;
  user: string;
  password: string;
  sql: string;
  databaseUrl?: string;
}

function dbLogins(prefix: string, databaseUrl: string | undefined): DbLogin[] {
  if (!isRolePrefix(prefix)) throw new UsageError(`--prefix ${prefix}: lower-case letters, digits and _, at most 41`);
  if (databaseUrl !== undefined && !URL.canParse(databaseUrl)) throw new UsageError('--database-url is not a URL');
  return DATABASE_APPS.map((app) => {
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
}

function loginsText(logins: DbLogin[]): string {
  return [
    '-- run once as the owner (psql), then give each app its DATABASE_URL:',
    ...logins.map((login) => login.sql),
    ...logins.flatMap((login) => (login.databaseUrl ? [`# ${login.app}: DATABASE_URL=${login.databaseUrl}`] : [])),
  ].join('\n');
}
