import type { TestDatabase } from '@gateway/app-testkit';
import type { SigningKeyPair } from './fixtures';

/** Worker settings for tests: loopback merchants allowed, retries (of failures and of refusals) in milliseconds. */
export function workerEnv(
  db: TestDatabase,
  redisPrefix: string,
  keys: readonly SigningKeyPair[],
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: db.connectionString,
    DATABASE_SCHEMA: db.schema,
    DATABASE_POOL_SIZE: '5',
    REDIS_PREFIX: redisPrefix,
    CALLBACK_SIGNING_KEYS: keys.map((key) => key.setting).join(','),
    CALLBACK_ALLOWED_CIDRS: '127.0.0.0/8',
    // Far above a loopback merchant's answer, so a CI runner starved of CPU (seen: 1.8 s to read a 50 ms
    // answer) does not turn answered callbacks into timeouts that are rightly sent again; tests of slow
    // merchants set their own.
    CALLBACK_CONNECT_TIMEOUT_SECONDS: '5',
    CALLBACK_HEADERS_TIMEOUT_SECONDS: '5',
    CALLBACK_BODY_TIMEOUT_SECONDS: '5',
    CALLBACK_RETRY_FIRST_DELAY_MS: '200',
    CALLBACK_RETRY_MAX_DELAY_MS: '2000',
    CALLBACK_RETRY_MAX_RETRIES: '4',
    CALLBACK_REFUSAL_RETRY_FIRST_DELAY_MS: '100',
    CALLBACK_REFUSAL_RETRY_MAX_DELAY_MS: '400',
    CALLBACK_REFUSAL_RETRY_MAX_RETRIES: '3',
    RECONCILE_INTERVAL_MS: '500',
    METRICS_PORT: '0',
    ...overrides,
  };
}
