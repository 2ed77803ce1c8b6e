import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkChainNetwork,
  checkPublicUrl,
  checkPublicUrlResolves,
  resolveHostAddresses,
  parseRateSourceSettings,
  parseSecretBytes,
  rateTableFingerprint,
} from '../src';

// The table @gateway/rates bundles (SAMPLE_RATE_FILE there; config does not depend on rates).
const SAMPLE_RATE_FILE = join(__dirname, '..', '..', 'rates', 'data', 'local-rates.json');

describe('parseSecretBytes', () => {
  it('takes base64 and base64url of 32 bytes or more', () => {
    const key = randomBytes(32);
    expect(parseSecretBytes(key.toString('base64'), 'S').equals(key)).toBe(true);
    expect(parseSecretBytes(key.toString('base64url'), 'S').equals(key)).toBe(true);
    expect(parseSecretBytes(randomBytes(64).toString('base64'), 'S')).toHaveLength(64);
  });
  it.each([
    ['43 "=" (a 0-byte key that passes a character check)', '='.repeat(43)],
    ['31 bytes', randomBytes(31).toString('base64')],
    ['stray characters', `${randomBytes(32).toString('base64')}!`],
    ['a passphrase', 'correct horse battery staple correct horse battery'],
  ])('refuses %s, naming the setting and not the value', (_name, value) => {
    expect(() => parseSecretBytes(value, 'SANDBOX_SIGNING_SECRET')).toThrow(
      /^invalid configuration:\n {2}- SANDBOX_SIGNING_SECRET: must be base64 of at least 32 random bytes/,
    );
    try {
      parseSecretBytes(value, 'SANDBOX_SIGNING_SECRET');
    } catch (error) {
      expect((error as Error).message).not.toContain(value);
    }
  });
});

describe('checkPublicUrl', () => {
  it('takes anything outside production, without a trailing slash', () => {
    expect(checkPublicUrl('http://127.0.0.1:3200/', false)).toBe('http://127.0.0.1:3200');
  });
  it('in production takes an https URL of a real host only', () => {
    expect(checkPublicUrl('https://pay.example.com/', true)).toBe('https://pay.example.com');
    const refused = (url: string) => {
      try {
        checkPublicUrl(url, true);
        return false;
      } catch (error) {
        return /^invalid configuration:\n {2}- PUBLIC_URL: must be the https URL customers and providers reach/.test(
          (error as Error).message,
        );
      }
    };
    const urls = [
      'http://pay.example.com',
      'https://127.0.0.1',
      'https://localhost:3200',
      'https://[::1]',
      'https://0.0.0.0',
      'https://app.localhost',
      // Issue 22: loopback written IPv4-mapped booted; so did every other spelling below.
      'https://[::ffff:7f00:1]',
      'https://[::ffff:127.0.0.1]',
      'https://[::7f00:1]',
      'https://2130706433',
      'https://0x7f.1',
      'https://localhost.',
      'https://[::]',
      'https://10.0.0.5',
      'https://192.168.1.10',
      'https://169.254.169.254',
      'https://[fe80::1]',
      'https://[fd00::1]',
      'https://100.64.0.1',
    ];
    expect(urls.filter((url) => !refused(url))).toEqual([]);
    expect(() => checkPublicUrl('https://[::ffff:7f00:1]', true)).toThrow(/got https:\/\/\[::ffff:7f00:1\]\): loopback address/);
    expect(checkPublicUrl('https://8.8.8.8', true)).toBe('https://8.8.8.8');
    expect(checkPublicUrl('https://[2a00:1450:4001::1]:8443', true)).toBe('https://[2a00:1450:4001::1]:8443');
  });
});

describe('checkPublicUrlResolves', () => {
  /** A resolver that answers from a table, as the machine's resolver would, and fails as it does for a name it does not know. */
  const stub = (answers: Record<string, string[]>) => {
    const asked: string[] = [];
    const resolve = async (host: string) => {
      asked.push(host);
      const addresses = answers[host];
      if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return addresses;
    };
    return { resolve, asked };
  };
  const problemOf = (url: string, resolve: (host: string) => Promise<string[]>) =>
    checkPublicUrlResolves(url, true, resolve).then(
      () => undefined,
      (error: Error) => error.message,
    );

  it('in production takes a name that resolves to public addresses only, and resolves nothing for an address or outside production', async () => {
    const { resolve, asked } = stub({ 'pay.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] });
    await expect(checkPublicUrlResolves('https://pay.example.com', true, resolve)).resolves.toBeUndefined();
    await expect(checkPublicUrlResolves('https://8.8.8.8', true, resolve)).resolves.toBeUndefined();
    await expect(checkPublicUrlResolves('http://127.0.0.1.nip.io:3200', false, resolve)).resolves.toBeUndefined();
    expect(asked).toEqual(['pay.example.com']);
  });

  // Issue 35: these passed the production check, being names, not addresses.
  it.each([
    ['https://127.0.0.1.nip.io', { '127.0.0.1.nip.io': ['127.0.0.1'] }, /127\.0\.0\.1\.nip\.io resolves to 127\.0\.0\.1: loopback address/],
    ['https://localhost.localdomain', { 'localhost.localdomain': ['127.0.0.1', '::1'] }, /resolves to 127\.0\.0\.1: loopback address/],
    ['https://pay.example.com', { 'pay.example.com': ['93.184.215.14', '10.1.2.3'] }, /resolves to 10\.1\.2\.3: private address/],
    ['https://metadata.example', { 'metadata.example': ['169.254.169.254'] }, /resolves to 169\.254\.169\.254: linkLocal address/],
  ])('refuses %s, naming PUBLIC_URL and the address', async (url, answers, reason) => {
    const problem = await problemOf(url, stub(answers).resolve);
    expect(problem).toMatch(/^invalid configuration:\n {2}- PUBLIC_URL: /);
    expect(problem).toMatch(reason);
  });

  it('refuses a name that does not resolve at boot, saying why', async () => {
    expect(await problemOf('https://pay.example.com', stub({}).resolve)).toMatch(
      /PUBLIC_URL: its host pay\.example\.com does not resolve \(ENOTFOUND\); in production it must be the name customers and providers reach this host at/,
    );
    // The machine's own resolver: a .invalid name never resolves (RFC 6761).
    expect(await problemOf('https://pay.gateway.invalid', resolveHostAddresses)).toMatch(
      /its host pay\.gateway\.invalid does not resolve \((ENOTFOUND|EAI_AGAIN)\)/,
    );
  });
});

describe('checkChainNetwork', () => {
  const problemsOf = (CHAIN_ID: number, CHAIN_NETWORK: 'mainnet' | 'testnet', production = true) => {
    const problems: string[] = [];
    checkChainNetwork({ CHAIN_ID, CHAIN_NETWORK }, production, problems);
    return problems;
  };
  it('in production takes Polygon PoS, and Polygon Amoy only where the operator says testnet', () => {
    expect(problemsOf(137, 'mainnet')).toEqual([]);
    expect(problemsOf(80_002, 'testnet')).toEqual([]);
    expect(problemsOf(31_337, 'mainnet')).toEqual([
      expect.stringMatching(/^CHAIN_ID: 31337 is not Polygon PoS \(137\); .*CHAIN_NETWORK=testnet/),
    ]);
    expect(problemsOf(80_002, 'mainnet')).toEqual([expect.stringMatching(/^CHAIN_ID: 80002 is not Polygon PoS/)]);
    expect(problemsOf(137, 'testnet')).toEqual([expect.stringMatching(/^CHAIN_ID: 137 is not Polygon Amoy \(80002\)/)]);
    expect(problemsOf(31_337, 'testnet')).toEqual([expect.stringMatching(/^CHAIN_ID: 31337 is not Polygon Amoy/)]);
    expect(problemsOf(1, 'mainnet')).toHaveLength(1);
  });
  it('takes any chain outside production (the local chain is 31337)', () => {
    expect(problemsOf(31_337, 'mainnet', false)).toEqual([]);
  });
});

describe('the bundled sample rates', () => {
  const raw = { RATE_SOURCE: 'file' as const, RATE_FILE: SAMPLE_RATE_FILE, RATE_REFRESH_SECONDS: 3600, RATE_FETCH_TIMEOUT_SECONDS: 10 };
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rates-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const inProduction = (file: string) => () =>
    parseRateSourceSettings({ ...raw, RATE_FILE: file, NODE_ENV: 'production' }, { sampleFile: SAMPLE_RATE_FILE });

  it('are refused in production, and allowed elsewhere', () => {
    expect(inProduction(SAMPLE_RATE_FILE)).toThrow(/RATE_FILE: the bundled sample rates are refused in production/);
    expect(parseRateSourceSettings({ ...raw, NODE_ENV: 'development' }, { sampleFile: SAMPLE_RATE_FILE }).file).toBe(SAMPLE_RATE_FILE);
  });

  it('are refused by their content: a byte copy at another path, reformatted, or with another description', () => {
    const copy = join(dir, 'rates.json');
    copyFileSync(SAMPLE_RATE_FILE, copy);
    expect(inProduction(copy)).toThrow(/RATE_FILE: the bundled sample rates are refused in production/);
    const sample = JSON.parse(readFileSync(SAMPLE_RATE_FILE, 'utf8')) as { base: string; rates: Record<string, string> };
    const reformatted = join(dir, 'reformatted.json');
    const reordered = Object.fromEntries(Object.entries(sample.rates).reverse());
    writeFileSync(reformatted, JSON.stringify({ rates: reordered, description: 'our rates', base: sample.base }, null, 4));
    expect(inProduction(reformatted)).toThrow(/RATE_FILE: the bundled sample rates are refused in production/);
    // One rate changed: a table of the operator's own.
    const own = join(dir, 'own.json');
    writeFileSync(own, JSON.stringify({ ...sample, rates: { ...sample.rates, EUR: '0.93' } }));
    expect(inProduction(own)().file).toBe(own);
    // A file that cannot be read is the rate reader's to report, not this rule's.
    expect(inProduction(join(dir, 'missing.json'))().file).toBe(join(dir, 'missing.json'));
  });

  it('are fingerprinted by base and rates, whatever the key order and spacing', () => {
    expect(rateTableFingerprint('{"base":"USD","rates":{"EUR":"0.9","USD":"1"}}')).toBe(
      rateTableFingerprint('{ "rates": { "USD": "1", "EUR": "0.9" }, "base": "USD", "asOf": "x" }'),
    );
    expect(rateTableFingerprint('{"base":"USD","rates":{"EUR":"0.9"}}')).not.toBe(
      rateTableFingerprint('{"base":"EUR","rates":{"EUR":"0.9"}}'),
    );
    expect(rateTableFingerprint('not json')).toBe(rateTableFingerprint('not json'));
    expect(rateTableFingerprint('not json')).not.toBe(rateTableFingerprint('not json '));
  });
});
