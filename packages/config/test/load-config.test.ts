import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { ConfigError, loadConfig } from '../src/load-config';
import { parseRateTable, parseSealingKeys, parseTrustProxy } from '../src/parse-settings';
import { databaseSettings, serverSettings } from '../src/settings';

const schema = Type.Object({ ...databaseSettings, ...serverSettings(3100), SECRET: Type.String({ minLength: 10 }) });

describe('loadConfig', () => {
  it('applies defaults and converts types', () => {
    const config = loadConfig(schema, { DATABASE_URL: 'postgres://x', SECRET: 'abcdefghijkl', PORT: '8080' });
    expect(config).toMatchObject({ DATABASE_URL: 'postgres://x', PORT: 8080, HOST: '0.0.0.0', DATABASE_SCHEMA: 'public', TRUST_PROXY: 'false' });
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
    expect(() => loadConfig(schema, { DATABASE_URL: 'postgres://x', SECRET_FILE: join(dir, 'missing') })).toThrow(/SECRET_FILE: cannot read/);
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

  it('parses exchange rates exactly and refuses unknown currencies', () => {
    const table = parseRateTable('EUR=0.92, CAD=1.37');
    expect(table.get('EUR')).toEqual({ numerator: 92n, denominator: 100n });
    expect(() => parseRateTable('XXX=1')).toThrow(/XXX is not a supported currency/);
    expect(() => parseRateTable('EUR=-1')).toThrow(/FX_RATES_PER_USD/);
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
