import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Type } from '@sinclair/typebox';
import { ConfigError, loadConfig } from '../src/load-config';
import { parseRateSourceSettings, parseSealingKeys, parseTrustProxy } from '../src/parse-settings';
import { databaseSettings, serverSettings } from '../src/settings';

const schema = Type.Object({ ...databaseSettings, ...serverSettings(3100), SECRET: Type.String({ minLength: 10 }) });

describe('loadConfig', () => {
  it('applies defaults and converts types', () => {
    const config = loadConfig(schema, { DATABASE_URL: 'postgres://x', SECRET: 'abcdefghijkl', PORT: '8080' });
    expect(config).toMatchObject({
      DATABASE_URL: 'postgres://x',
      PORT: 8080,
      HOST: '0.0.0.0',
      DATABASE_SCHEMA: 'public',
      TRUST_PROXY: 'false',
    });
  });

  it('reports every bad or missing setting by name, without echoing values', () => {
    let error: unknown;
    try {
      loadConfig(schema, { PORT: 'eighty', SECRET: 'short-val' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/DATABASE_URL/);
    expect(message).toMatch(/PORT/);
    expect(message).toMatch(/SECRET/);
    expect(message).not.toContain('short-val');
  });

  it('reads X from the file named in X_FILE', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    writeFileSync(join(dir, 'secret'), 'from-a-mounted-file\n');
    const config = loadConfig(schema, { DATABASE_URL: 'postgres://x', SECRET_FILE: join(dir, 'secret') });
    expect(config.SECRET).toBe('from-a-mounted-file');
    expect(() => loadConfig(schema, { DATABASE_URL: 'postgres://x', SECRET_FILE: join(dir, 'missing') })).toThrow(
      /SECRET_FILE: cannot read/,
    );
  });
});

describe('setting parsers', () => {
  it('builds the sealing key ring, newest first', () => {
    const k2 = Buffer.alloc(32, 2).toString('base64');
    const k1 = Buffer.alloc(32, 1).toString('base64url');
    const ring = parseSealingKeys(`k2:${k2},k1:${k1}`);
    expect(ring.current.id).toBe('k2');
    expect([...ring.byId.keys()]).toEqual(['k2', 'k1']);
    expect(() => parseSealingKeys(`k1:${Buffer.alloc(16).toString('base64')}`)).toThrow(/ADDRESS_IN_KEYS: .*32 bytes/);
  });

  it('resolves the rate source: ecb in production, the file source elsewhere, per-source maximum ages', () => {
    const base = { RATE_REFRESH_SECONDS: 3600, RATE_FETCH_TIMEOUT_SECONDS: 10 };
    expect(parseRateSourceSettings({ ...base, NODE_ENV: 'production' })).toEqual({
      kind: 'ecb',
      refreshMs: 3_600_000,
      maxAgeMs: 432_000_000,
      fetchTimeoutMs: 10_000,
    });
    expect(parseRateSourceSettings({ ...base, NODE_ENV: 'test' })).toMatchObject({ kind: 'file', maxAgeMs: 432_000_000 });
    expect(
      parseRateSourceSettings({ ...base, NODE_ENV: 'production', RATE_SOURCE: 'open-er-api', RATE_SOURCE_URL: 'https://mirror.test/USD' }),
    ).toMatchObject({ kind: 'open-er-api', url: 'https://mirror.test/USD', maxAgeMs: 172_800_000 });
    expect(
      parseRateSourceSettings({
        ...base,
        NODE_ENV: 'production',
        RATE_SOURCE: 'file',
        RATE_FILE: 'rates.json',
        RATE_MAX_AGE_SECONDS: 7200,
      }),
    ).toMatchObject({ kind: 'file', file: resolve('rates.json'), maxAgeMs: 7_200_000 });
  });

  it('refuses rate settings that cannot work together', () => {
    const base = { RATE_REFRESH_SECONDS: 3600, RATE_FETCH_TIMEOUT_SECONDS: 10 };
    expect(() => parseRateSourceSettings({ ...base, NODE_ENV: 'production', RATE_SOURCE: 'file' })).toThrow(/RATE_FILE: required/);
    expect(() => parseRateSourceSettings({ ...base, NODE_ENV: 'test', RATE_SOURCE: 'ecb', RATE_FILE: 'x.json' })).toThrow(
      /RATE_FILE: only read/,
    );
    expect(() => parseRateSourceSettings({ ...base, NODE_ENV: 'test', RATE_SOURCE_URL: 'https://x.test' })).toThrow(/RATE_SOURCE_URL/);
    expect(() => parseRateSourceSettings({ ...base, NODE_ENV: 'test', RATE_MAX_AGE_SECONDS: 600 })).toThrow(/RATE_MAX_AGE_SECONDS/);
  });
});

describe('parseTrustProxy', () => {
  it('trusts nothing, a number of hops, or proxy addresses and ranges', () => {
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('0')).toBe(false);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('10.0.0.0/8, 192.168.1.7,fd00::/8')).toEqual(['10.0.0.0/8', '192.168.1.7', 'fd00::/8']);
  });

  it('refuses to trust the whole header, and ranges that are not ranges', () => {
    for (const bad of ['true', '10.0.0.0/33', 'proxy.local', '10.0.0.1/8/2', '::1/129']) {
      expect(() => parseTrustProxy(bad)).toThrow(/TRUST_PROXY/);
    }
  });
});
