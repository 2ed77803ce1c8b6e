import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { xpubFromMnemonic } from '@gateway/chain';
import { parseCallbackPublicKeys, parseCallbackSigningKeys, parseSealingKeys } from '@gateway/config';
import { runGateway } from '@gateway/app-testkit';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-keys-out-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const modeOf = (file: string) => statSync(file).mode & 0o777;
/** `NAME=value` lines as a record. */
const settingsIn = (text: string) =>
  Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => line.split(/=(.*)/s).slice(0, 2)),
  );

// Issue 35: `gateway keys seed > seed.env` left the mnemonic in a file the shell made world-readable (umask 022).
describe('gateway keys --out FILE', () => {
  it('seed: writes the mnemonic and its xpub to a new file of mode 0600, and only names them on stdout', async () => {
    const file = join(dir, 'seed.env');
    const run = await runGateway(['keys', 'seed', '--out', file], {});
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(modeOf(file)).toBe(0o600);
    const keys = settingsIn(readFileSync(file, 'utf8'));
    expect(keys.SETTLEMENT_MNEMONIC?.split(' ')).toHaveLength(24);
    expect(keys.HD_XPUB).toBe(xpubFromMnemonic(keys.SETTLEMENT_MNEMONIC!));
    expect(run.stdout).toBe(`SETTLEMENT_MNEMONIC, HD_XPUB written to ${file} (mode 0600)\n`);
    expect(run.stdout).not.toContain(keys.SETTLEMENT_MNEMONIC);

    const json = join(dir, 'seed.json');
    const jsonRun = await runGateway(['keys', 'seed', '--out', json, '--json'], {});
    expect(jsonRun.code).toBe(0);
    expect(JSON.parse(jsonRun.stdout)).toEqual({ file: json, mode: '0600', settings: ['SETTLEMENT_MNEMONIC', 'HD_XPUB'] });
    const written = JSON.parse(readFileSync(json, 'utf8')) as { SETTLEMENT_MNEMONIC: string; HD_XPUB: string };
    expect(written.HD_XPUB).toBe(xpubFromMnemonic(written.SETTLEMENT_MNEMONIC));
    expect(modeOf(json)).toBe(0o600);
  }, 60_000);

  it('never overwrites a file, nor follows a link, without --force; with it, replaces the file by a new one of mode 0600', async () => {
    const file = join(dir, 'existing.env');
    writeFileSync(file, 'KEEP=me\n', { mode: 0o644 });
    const refused = await runGateway(['keys', 'seed', '--out', file], {});
    expect([refused.code, refused.stdout]).toEqual([1, '']);
    expect(refused.stderr).toBe(`gateway keys: ${file} exists; give a new file, or --force to replace it\n`);
    expect(readFileSync(file, 'utf8')).toBe('KEEP=me\n');
    expect(modeOf(file)).toBe(0o644);

    // A link to where the secret would be readable (or to a file to clobber) is a file that exists.
    const target = join(dir, 'elsewhere.env');
    const link = join(dir, 'link.env');
    symlinkSync(target, link);
    expect((await runGateway(['keys', 'sealing', '--out', link], {})).code).toBe(1);
    expect(existsSync(target)).toBe(false);

    const forced = await runGateway(['keys', 'seed', '--out', file, '--force'], {});
    expect([forced.code, forced.stderr]).toEqual([0, '']);
    expect(modeOf(file)).toBe(0o600);
    expect(settingsIn(readFileSync(file, 'utf8')).SETTLEMENT_MNEMONIC?.split(' ')).toHaveLength(24);
    expect((await runGateway(['keys', 'sealing', 'k3', '--out', link, '--force'], {})).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(false);
    expect(modeOf(link)).toBe(0o600);
    expect(existsSync(target)).toBe(false);
    // Nothing left beside the files (the replacement is written under another name, then renamed).
    expect(readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([]);

    const forceAlone = await runGateway(['keys', 'seed', '--force'], {});
    expect([forceAlone.code, forceAlone.stderr.split('\n')[0]]).toEqual([
      2,
      'gateway keys: --force replaces the files of --out or --out-dir',
    ]);
  }, 60_000);

  it('--out-dir DIR: one file of mode 0600 per setting, its bare value, named as docker-compose.production.yml mounts it', async () => {
    const secrets = join(dir, 'secrets');
    mkdirSync(secrets);
    const seedRun = await runGateway(['keys', 'seed', '--out-dir', secrets], {});
    expect([seedRun.code, seedRun.stderr]).toEqual([0, '']);
    expect(seedRun.stdout).toBe(
      `SETTLEMENT_MNEMONIC, HD_XPUB written to ${join(secrets, 'settlement_mnemonic')}, ${join(secrets, 'hd_xpub')} (mode 0600)\n`,
    );
    const mnemonic = readFileSync(join(secrets, 'settlement_mnemonic'), 'utf8').trim();
    expect(mnemonic.split(' ')).toHaveLength(24);
    expect(readFileSync(join(secrets, 'hd_xpub'), 'utf8')).toBe(`${xpubFromMnemonic(mnemonic)}\n`);
    expect((await runGateway(['keys', 'callback', '--out-dir', secrets], {})).code).toBe(0);
    expect((await runGateway(['keys', 'sealing', '--out-dir', secrets], {})).code).toBe(0);
    const compose = readFileSync(join(__dirname, '..', '..', '..', 'docker-compose.production.yml'), 'utf8');
    for (const name of readdirSync(secrets)) {
      expect(modeOf(join(secrets, name))).toBe(0o600);
      expect(compose).toContain(`/secrets}/${name}'`);
    }
    // A second seed would leave the xpub of one and the mnemonic of another: nothing is written unless every file is new.
    const again = await runGateway(['keys', 'seed', '--out-dir', secrets], {});
    expect(again.code).toBe(1);
    expect(readFileSync(join(secrets, 'settlement_mnemonic'), 'utf8').trim()).toBe(mnemonic);
    expect((await runGateway(['keys', 'seed', '--out-dir', secrets, '--out', join(dir, 'x')], {})).code).toBe(2);
  }, 60_000);

  it('sealing, callback, admin and db-logins: the same, each file what the apps read', async () => {
    const sealing = join(dir, 'sealing.env');
    expect((await runGateway(['keys', 'sealing', 'k9', '--out', sealing], {})).code).toBe(0);
    expect(() => parseSealingKeys(settingsIn(readFileSync(sealing, 'utf8')).ADDRESS_IN_KEYS!)).not.toThrow();

    const callback = join(dir, 'callback.env');
    const callbackRun = await runGateway(['keys', 'callback', '--out', callback], {});
    expect(callbackRun.stdout).toBe(`CALLBACK_SIGNING_KEYS, CALLBACK_PUBLIC_KEYS written to ${callback} (mode 0600)\n`);
    const pair = settingsIn(readFileSync(callback, 'utf8'));
    const problems: string[] = [];
    expect(parseCallbackSigningKeys(pair.CALLBACK_SIGNING_KEYS!, problems)).toHaveLength(1);
    expect(parseCallbackPublicKeys(pair.CALLBACK_PUBLIC_KEYS!, problems)).toHaveLength(1);
    expect(problems).toEqual([]);

    const admin = join(dir, 'admin.env');
    expect((await runGateway(['keys', 'admin', '--out', admin], {})).code).toBe(0);
    expect(settingsIn(readFileSync(admin, 'utf8')).ADMIN_TOKEN).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const printed = await runGateway(['keys', 'admin'], {});
    expect(printed.stdout).toMatch(/^ADMIN_TOKEN=[A-Za-z0-9_-]{43}\n$/);

    const logins = join(dir, 'logins.sql');
    const loginsRun = await runGateway(['keys', 'db-logins', '--database-url', 'postgres://db:5432/gateway', '--out', logins], {});
    expect([loginsRun.code, loginsRun.stderr]).toEqual([0, '']);
    expect(loginsRun.stdout).not.toMatch(/PASSWORD/);
    expect(readFileSync(logins, 'utf8')).toMatch(
      /^-- run once as the owner[^\n]*\nCREATE ROLE "gateway_wallet_control_login" LOGIN NOINHERIT PASSWORD '[0-9a-f]{48}'/,
    );

    for (const file of [sealing, callback, admin, logins]) expect(modeOf(file)).toBe(0o600);
  }, 60_000);
});
