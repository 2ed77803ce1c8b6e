import { randomBytes, sign, verify } from 'node:crypto';
import { Client } from 'pg';
import { english } from 'viem/accounts';
import { xpubFromMnemonic } from '@gateway/chain';
import { parseCallbackPublicKeys, parseCallbackSigningKeys, parseSealingKeys } from '@gateway/config';
import { DATABASE_APPS, readMigrations } from '@gateway/db/cli';
import { TEST_DATABASE_URL } from '@gateway/testkit';
import { runGateway } from '@gateway/app-testkit';

const admin = new Client({ connectionString: TEST_DATABASE_URL });
beforeAll(() => admin.connect());
afterAll(() => admin.end());

describe('gateway (help and usage)', () => {
  it('prints every command with --help (exit 0), and the usage on stderr with exit 2 for no or an unknown command', async () => {
    const help = await runGateway(['--help'], {});
    expect(help.code).toBe(0);
    for (const command of [
      'migrate',
      'keys',
      'story',
      'callbacks list',
      'ledger export',
      'callbacks resend',
      'callbacks release',
      'deposits replan',
      'dust sweep',
      'queues',
    ])
      expect(help.stdout).toContain(`  ${command} `);
    const none = await runGateway([], {});
    expect([none.code, none.stdout]).toEqual([2, '']);
    expect(none.stderr).toMatch(/^usage: gateway <command>/);
    const unknown = await runGateway(['deposits', 'burn', '12'], {});
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "deposits burn 12"');
    expect(unknown.stderr).toContain('usage: gateway deposits replan');
    const commandHelp = await runGateway(['story', '--help'], {});
    expect(commandHelp.code).toBe(0);
    expect(commandHelp.stdout).toMatch(/^usage: gateway story /);
  }, 60_000);
});

describe('gateway migrate', () => {
  const schema = `cli_migrate_${randomBytes(5).toString('hex')}`;
  afterAll(() => admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));

  it('applies every migration once, then finds the schema up to date (--json for machines)', async () => {
    const env = { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema };
    const first = await runGateway(['migrate'], env);
    expect([first.code, first.stderr]).toEqual([0, '']);
    const names = readMigrations().map((migration) => migration.name);
    expect(first.stdout.trim()).toBe(`applied ${names.join(', ')}`);
    const { rows } = await admin.query(`SELECT name FROM "${schema}".schema_migrations ORDER BY name`);
    expect(rows.map((row: { name: string }) => row.name)).toEqual(names);
    const again = await runGateway(['migrate', '--json'], env);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ schema, applied: [] });
  }, 60_000);

  it('says which setting is missing and exits 1; an argument it does not take is a usage error (2)', async () => {
    const missing = await runGateway(['migrate'], {});
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('DATABASE_URL');
    expect(missing.stderr).not.toMatch(/\n\s+at /);
    const extra = await runGateway(['migrate', 'now'], { DATABASE_URL: TEST_DATABASE_URL });
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('usage: gateway migrate');
  }, 60_000);
});

describe('gateway keys', () => {
  it('seed: 24 words for the settlement worker and the xpub wallet-control derives the same wallets from', async () => {
    const run = await runGateway(['keys', 'seed', '--json'], {});
    expect([run.code, run.stderr]).toEqual([0, '']);
    const keys = JSON.parse(run.stdout) as { SETTLEMENT_MNEMONIC: string; HD_XPUB: string };
    expect(keys.SETTLEMENT_MNEMONIC.split(' ')).toHaveLength(24);
    expect(keys.SETTLEMENT_MNEMONIC.split(' ').filter((word) => !english.includes(word))).toEqual([]);
    expect(keys.HD_XPUB).toBe(xpubFromMnemonic(keys.SETTLEMENT_MNEMONIC));
    const text = await runGateway(['keys', 'seed'], {});
    expect(text.stdout).toMatch(/^SETTLEMENT_MNEMONIC=([a-z]+ ){23}[a-z]+\nHD_XPUB=xpub[1-9A-HJ-NP-Za-km-z]+\n$/);
  }, 60_000);

  it('sealing and callback: entries the apps read, new each time; a callback pair that signs and verifies', async () => {
    const sealing = await runGateway(['keys', 'sealing', 'k7'], {});
    expect(sealing.code).toBe(0);
    const entry = /^ADDRESS_IN_KEYS=(k7:[A-Za-z0-9+/=]{44})\n$/.exec(sealing.stdout)![1]!;
    expect(() => parseSealingKeys(entry)).not.toThrow();
    expect((await runGateway(['keys', 'sealing', 'k7'], {})).stdout).not.toBe(sealing.stdout);

    const callback = await runGateway(['keys', 'callback', '--json'], {});
    const pair = JSON.parse(callback.stdout) as { CALLBACK_SIGNING_KEYS: string; CALLBACK_PUBLIC_KEYS: string };
    const problems: string[] = [];
    const [privateKey] = parseCallbackSigningKeys(pair.CALLBACK_SIGNING_KEYS, problems);
    const [publicKey] = parseCallbackPublicKeys(pair.CALLBACK_PUBLIC_KEYS, problems);
    expect(problems).toEqual([]);
    expect(privateKey!.keyId).toMatch(/^k\d{8}$/);
    expect(publicKey!.kid).toBe(privateKey!.keyId);
    const message = Buffer.from('delivery');
    expect(verify(null, message, publicKey!.key, sign(null, message, privateKey!.key))).toBe(true);

    const bad = await runGateway(['keys', 'callback', 'no spaces!'], {});
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    const unknown = await runGateway(['keys', 'jwt'], {});
    expect([unknown.code, unknown.stderr.split('\n')[0]]).toEqual([2, 'gateway keys: no key kind jwt']);
  }, 60_000);

  it("db-logins: SQL that makes each app a login user in its app's role only, and the URLs to give them", async () => {
    const prefix = `cli_${randomBytes(4).toString('hex')}`;
    const roles = DATABASE_APPS.map((app) => `${prefix}_${app.replaceAll('-', '_')}`);
    for (const role of roles) await admin.query(`CREATE ROLE "${role}" NOLOGIN`);
    try {
      const run = await runGateway(['keys', 'db-logins', '--prefix', prefix, '--database-url', TEST_DATABASE_URL, '--json'], {});
      expect([run.code, run.stderr]).toEqual([0, '']);
      const logins = JSON.parse(run.stdout) as { app: string; user: string; password: string; sql: string; databaseUrl: string }[];
      expect(logins.map((login) => login.app)).toEqual([...DATABASE_APPS]);
      expect(new Set(logins.map((login) => login.password)).size).toBe(DATABASE_APPS.length);
      for (const login of logins) await admin.query(login.sql);
      for (const [index, login] of logins.entries()) {
        const client = new Client({ connectionString: login.databaseUrl });
        await client.connect();
        const { rows } = await client.query(
          `SELECT current_user AS "user", array(SELECT b.rolname FROM pg_auth_members m JOIN pg_roles b ON b.oid = m.roleid
             JOIN pg_roles u ON u.oid = m.member WHERE u.rolname = current_user)::text[] AS "memberOf",
             (SELECT rolinherit FROM pg_roles WHERE rolname = current_user) AS "inherits"`,
        );
        await client.end();
        // NOINHERIT: outside its app's role (SET ROLE NONE) the login user can do nothing.
        expect(rows[0]).toEqual({ user: login.user, memberOf: [roles[index]], inherits: false });
      }
      const usage = await runGateway(['keys', 'db-logins', '--prefix', 'Bad-Prefix'], {});
      expect(usage.code).toBe(2);
    } finally {
      for (const role of roles) {
        await admin.query(`DROP ROLE IF EXISTS "${role}_login"`);
        await admin.query(`DROP ROLE IF EXISTS "${role}"`);
      }
    }
  }, 60_000);
});
