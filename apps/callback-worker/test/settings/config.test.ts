import { generateKeyPairSync } from 'node:crypto';
import { loadCallbackWorkerConfig } from '../../src/config';
import { signingKeyPair } from '../support/fixtures';
import { configProblems } from '../support/worker-fixture';

const base = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
  REDIS_URL: 'redis://gw-callback-worker:a-password-of-its-own@127.0.0.1:6379',
  NODE_ENV: 'production',
};

function problemsOf(env: Record<string, string>): string[] {
  return configProblems({ ...base, ...env });
}

describe('callback-worker configuration', () => {
  it('reads signing keys as PEM or base64 PKCS#8, newest first, and applies the defaults', () => {
    const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const config = loadCallbackWorkerConfig({ ...base, CALLBACK_SIGNING_KEYS: `new:${pem},${signingKeyPair('old').setting}` });
    expect(config.signingKeys.map((key) => key.keyId)).toEqual(['new', 'old']);
    expect(config.allowedCidrs).toEqual([]);
    expect(config.http).toEqual({
      connectTimeoutMs: 5000,
      headersTimeoutMs: 10_000,
      bodyTimeoutMs: 10_000,
      attemptTimeoutMs: 20_000,
      maxResponseBytes: 65_536,
      userAgent: 'usdc-card-gateway/0.1.0',
    });
    expect(config.raw).toMatchObject({ WORKER_CONCURRENCY: 50, PER_HOST_CONCURRENCY: 4, METRICS_PORT: 3103 });
    // One attempt's deadline plus a margin; SIGTERM waits longer than that.
    expect(config.attemptLeaseMs).toBe(25_000);
    expect(config.shutdownGraceMs).toBe(40_000);
    expect(config.retrySchedules).toEqual({
      failure: { firstDelayMs: 30_000, maxDelayMs: 28_800_000, maxRetries: 18, jitter: 0.2 },
      refusal: { firstDelayMs: 60_000, maxDelayMs: 900_000, maxRetries: 4, jitter: 0.2 },
    });
  });

  it('refuses keys that are not Ed25519 private keys, and never prints them', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    const problems = problemsOf({ CALLBACK_SIGNING_KEYS: `k1:${rsa},k2:bm90IGEga2V5,nokid` });
    expect(problems).toEqual([
      'CALLBACK_SIGNING_KEYS: key k1 is not an Ed25519 private key (PEM or base64 PKCS#8)',
      'CALLBACK_SIGNING_KEYS: key k2 is not an Ed25519 private key (PEM or base64 PKCS#8)',
      'CALLBACK_SIGNING_KEYS: every entry must be kid:key with a kid of letters, digits, _ or - (at most 32)',
    ]);
    expect(problems.join()).not.toContain(rsa.slice(0, 20));
  });

  it('refuses an allow-list reaching loopback or link-local in production, and allows it elsewhere', () => {
    const keys = { CALLBACK_SIGNING_KEYS: signingKeyPair('k1').setting };
    for (const cidrs of ['127.0.0.0/8', '127.0.0.1/32', '::1/128', '169.254.0.0/16', '0.0.0.0/0']) {
      expect(problemsOf({ ...keys, CALLBACK_ALLOWED_CIDRS: cidrs })).toEqual([
        `CALLBACK_ALLOWED_CIDRS: ${cidrs} lets callbacks reach loopback or link-local addresses, refused in production`,
      ]);
    }
    expect(problemsOf({ ...keys, CALLBACK_ALLOWED_CIDRS: '10.20.0.0/16' })).toEqual([]);
    expect(problemsOf({ ...keys, CALLBACK_ALLOWED_CIDRS: 'localhost' })).toEqual([
      'CALLBACK_ALLOWED_CIDRS: "localhost" is not a CIDR range such as 10.1.0.0/16',
    ]);
    const local = loadCallbackWorkerConfig({ ...base, ...keys, NODE_ENV: 'development', CALLBACK_ALLOWED_CIDRS: '127.0.0.0/8,::1/128' });
    expect(local.allowedCidrs).toEqual(['127.0.0.0/8', '::1/128']);
  });

  it('reads the short schedule of refusals apart from the long one; 0 retries refuses at the first refusal', () => {
    const keys = { CALLBACK_SIGNING_KEYS: signingKeyPair('k1').setting };
    const config = loadCallbackWorkerConfig({
      ...base,
      ...keys,
      CALLBACK_REFUSAL_RETRY_FIRST_DELAY_MS: '120000',
      CALLBACK_REFUSAL_RETRY_MAX_DELAY_MS: '300000',
      CALLBACK_REFUSAL_RETRY_MAX_RETRIES: '0',
    });
    expect(config.retrySchedules.refusal).toEqual({ firstDelayMs: 120_000, maxDelayMs: 300_000, maxRetries: 0, jitter: 0.2 });
    expect(config.retrySchedules.failure).toMatchObject({ firstDelayMs: 30_000, maxRetries: 18 });
    expect(problemsOf({ ...keys, CALLBACK_REFUSAL_RETRY_MAX_RETRIES: '-1' })).toEqual([
      expect.stringMatching(/^CALLBACK_REFUSAL_RETRY_MAX_RETRIES/),
    ]);
    expect(problemsOf({ ...keys, CALLBACK_REFUSAL_RETRY_FIRST_DELAY_MS: '0' })).toEqual([
      expect.stringMatching(/^CALLBACK_REFUSAL_RETRY_FIRST_DELAY_MS/),
    ]);
  });

  it('refuses a shutdown grace period that an attempt and its record would not fit in', () => {
    const keys = { CALLBACK_SIGNING_KEYS: signingKeyPair('k1').setting };
    expect(problemsOf({ ...keys, CALLBACK_ATTEMPT_TIMEOUT_SECONDS: '30', CALLBACK_SHUTDOWN_GRACE_SECONDS: '35' })).toEqual([
      'CALLBACK_SHUTDOWN_GRACE_SECONDS: must be longer than CALLBACK_ATTEMPT_TIMEOUT_SECONDS + 5 (36 or more here), so an attempt in ' +
        'flight and its record finish before the process exits',
    ]);
    const config = loadCallbackWorkerConfig({
      ...base,
      ...keys,
      CALLBACK_ATTEMPT_TIMEOUT_SECONDS: '30',
      CALLBACK_SHUTDOWN_GRACE_SECONDS: '36',
    });
    expect(config).toMatchObject({ attemptLeaseMs: 35_000, shutdownGraceMs: 36_000, http: { attemptTimeoutMs: 30_000 } });
  });
});
