import { signingKeyPair } from '../support/fixtures';
import { configProblems } from '../support/worker-fixture';

const base = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
  REDIS_URL: 'redis://gw-callback-worker:a-password-of-its-own@127.0.0.1:6379',
  CALLBACK_SIGNING_KEYS: signingKeyPair('k1').setting,
};

function problemsOf(env: Record<string, string>): string[] {
  return configProblems({ ...base, ...env });
}

describe('CALLBACK_ALLOWED_CIDRS in production', () => {
  it.each([
    // The host's own listeners, reached through the unspecified address.
    '0.0.0.0/32',
    '0.0.0.0/8',
    '::/128',
    // IPv4-compatible (deprecated) addresses: ::7f00:1 is 127.0.0.1.
    '::7f00:1/128',
    '::/96',
    // IPv4-mapped spellings of refused ranges.
    '::ffff:127.0.0.1/128',
    '::ffff:0.0.0.0/128',
    '::ffff:169.254.169.254/128',
    '::ffff:0:0/96',
  ])('refuses %s', (cidrs) => {
    expect(problemsOf({ NODE_ENV: 'production', CALLBACK_ALLOWED_CIDRS: cidrs })).toEqual([
      expect.stringMatching(
        new RegExp(`^CALLBACK_ALLOWED_CIDRS: ${cidrs.replaceAll('.', '\\.')} lets callbacks reach .*, refused in production$`),
      ),
    ]);
  });

  it('accepts ranges on other networks, also IPv4-mapped', () => {
    expect(problemsOf({ NODE_ENV: 'production', CALLBACK_ALLOWED_CIDRS: '10.20.0.0/16,::ffff:10.30.0.0/112,fd12:3456::/32' })).toEqual([]);
  });

  it('leaves them to the operator outside production', () => {
    expect(problemsOf({ NODE_ENV: 'development', CALLBACK_ALLOWED_CIDRS: '0.0.0.0/32,::/128,127.0.0.0/8' })).toEqual([]);
  });
});
