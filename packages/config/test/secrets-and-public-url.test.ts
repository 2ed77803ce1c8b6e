import { randomBytes } from 'node:crypto';
import { checkPublicUrl, parseRateSourceSettings, parseSecretBytes } from '../src';

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
    for (const url of [
      'http://pay.example.com',
      'https://127.0.0.1',
      'https://localhost:3200',
      'https://[::1]',
      'https://0.0.0.0',
      'https://app.localhost',
    ]) {
      expect(() => checkPublicUrl(url, true)).toThrow(/PUBLIC_URL: must be the https URL customers and providers reach/);
    }
  });
});

describe('the bundled sample rates', () => {
  const raw = {
    RATE_SOURCE: 'file' as const,
    RATE_FILE: '/srv/packages/rates/data/local-rates.json',
    RATE_REFRESH_SECONDS: 3600,
    RATE_FETCH_TIMEOUT_SECONDS: 10,
  };
  it('are refused in production by path, and allowed elsewhere', () => {
    expect(() => parseRateSourceSettings({ ...raw, NODE_ENV: 'production' }, { sampleFile: raw.RATE_FILE })).toThrow(
      /RATE_FILE: the bundled sample rates are refused in production/,
    );
    expect(parseRateSourceSettings({ ...raw, NODE_ENV: 'development' }, { sampleFile: raw.RATE_FILE }).file).toBe(raw.RATE_FILE);
  });
});
