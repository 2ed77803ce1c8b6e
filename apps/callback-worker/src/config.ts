import { Type, type Static } from '@sinclair/typebox';
import {
  callbackAllowedCidrsSettings,
  ConfigError,
  databaseSettings,
  loadConfig,
  parseCallbackAllowedCidrs,
  parseCallbackSigningKeys,
  checkRedisUrl,
  redisSettings,
  runtimeSettings,
} from '@gateway/config';
import type { CallbackRetrySchedules } from '@gateway/domain';
import { DEFAULT_CALLBACK_REFUSAL_SCHEDULE, DEFAULT_CALLBACK_RETRY_SCHEDULE } from '@gateway/domain';
import type { CallbackSigningKey } from '@usdc-card-gateway/sdk';
import { gatewayUserAgent } from './gateway-version';

const seconds = (fallback: number, what: string) =>
  Type.Number({ default: fallback, exclusiveMinimum: 0, maximum: 300, description: `${what}, in seconds (decimals allowed)` });

export const callbackWorkerSettings = Type.Object({
  ...runtimeSettings,
  ...databaseSettings,
  ...redisSettings,
  CALLBACK_SIGNING_KEYS: Type.String({
    minLength: 1,
    description:
      'Ed25519 private keys as kid:key, comma-separated, newest first; key is PEM or base64 PKCS#8. Every key signs (one v1 each), ' +
      'so merchants keep verifying during a rotation',
  }),
  ...callbackAllowedCidrsSettings,
  CALLBACK_CONNECT_TIMEOUT_SECONDS: seconds(5, 'DNS, TCP and TLS time limit'),
  CALLBACK_HEADERS_TIMEOUT_SECONDS: seconds(10, 'time limit from sending the request to the end of the response headers'),
  CALLBACK_BODY_TIMEOUT_SECONDS: seconds(10, 'longest silence allowed between two chunks of the response body'),
  CALLBACK_ATTEMPT_TIMEOUT_SECONDS: seconds(
    20,
    'the whole attempt, DNS to the last byte of the body: a merchant dripping its answer is cut off here',
  ),
  CALLBACK_SHUTDOWN_GRACE_SECONDS: Type.Number({
    default: 40,
    exclusiveMinimum: 0,
    maximum: 3600,
    description:
      'on SIGTERM, how long attempts in flight and their records may take before the process exits anyway; must exceed ' +
      "CALLBACK_ATTEMPT_TIMEOUT_SECONDS + 5 (and stay below the orchestrator's own kill delay)",
  }),
  CALLBACK_MAX_RESPONSE_BYTES: Type.Integer({
    default: 65_536,
    minimum: 1024,
    description: 'reading a response stops past this many bytes',
  }),
  WORKER_CONCURRENCY: Type.Integer({ default: 50, minimum: 1, maximum: 1000, description: 'callbacks in flight per process' }),
  PER_HOST_CONCURRENCY: Type.Integer({
    default: 4,
    minimum: 1,
    maximum: 1000,
    description: 'callbacks in flight per merchant host per process',
  }),
  RECONCILE_INTERVAL_MS: Type.Integer({
    default: 5000,
    minimum: 50,
    description: 'how often due deliveries without a queued job are re-enqueued',
  }),
  CALLBACK_RETRY_FIRST_DELAY_MS: Type.Integer({
    default: DEFAULT_CALLBACK_RETRY_SCHEDULE.firstDelayMs,
    minimum: 1,
    description: 'delay before the first retry; later ones double',
  }),
  CALLBACK_RETRY_MAX_DELAY_MS: Type.Integer({
    default: DEFAULT_CALLBACK_RETRY_SCHEDULE.maxDelayMs,
    minimum: 1,
    description: 'longest delay between two retries',
  }),
  CALLBACK_RETRY_MAX_RETRIES: Type.Integer({
    default: DEFAULT_CALLBACK_RETRY_SCHEDULE.maxRetries,
    minimum: 0,
    maximum: 1000,
    description: 'retries before a delivery is failed (default: about three days)',
  }),
  CALLBACK_REFUSAL_RETRY_FIRST_DELAY_MS: Type.Integer({
    default: DEFAULT_CALLBACK_REFUSAL_SCHEDULE.firstDelayMs,
    minimum: 1,
    description: 'a merchant that refused (a 4xx other than 408, 425 and 429): delay before the first retry; later ones double',
  }),
  CALLBACK_REFUSAL_RETRY_MAX_DELAY_MS: Type.Integer({
    default: DEFAULT_CALLBACK_REFUSAL_SCHEDULE.maxDelayMs,
    minimum: 1,
    description: 'a merchant that refused: longest delay between two retries',
  }),
  CALLBACK_REFUSAL_RETRY_MAX_RETRIES: Type.Integer({
    default: DEFAULT_CALLBACK_REFUSAL_SCHEDULE.maxRetries,
    minimum: 0,
    maximum: 1000,
    description: 'refusals in a row retried before a delivery is refused (default: 1, 2, 4 and 8 minutes); 0 refuses at the first',
  }),
  METRICS_HOST: Type.String({ default: '0.0.0.0', description: 'interface for /healthz, /readyz and /metrics' }),
  METRICS_PORT: Type.Integer({ default: 3103, minimum: 0, maximum: 65535, description: 'port for /healthz, /readyz and /metrics' }),
});

export type CallbackWorkerSettings = Static<typeof callbackWorkerSettings>;

export interface CallbackWorkerConfig {
  raw: CallbackWorkerSettings;
  signingKeys: CallbackSigningKey[];
  allowedCidrs: string[];
  /** The long schedule (failures) and the short one (refusals). */
  retrySchedules: CallbackRetrySchedules;
  http: {
    connectTimeoutMs: number;
    headersTimeoutMs: number;
    bodyTimeoutMs: number;
    attemptTimeoutMs: number;
    maxResponseBytes: number;
    userAgent: string;
  };
  /**
   * How long a claimed attempt keeps its delivery from being claimed again: the attempt's deadline
   * plus a margin. A worker that dies mid-attempt delays that delivery by this much.
   */
  attemptLeaseMs: number;
  /** SIGTERM: attempts in flight and their records get this long; longer than attemptLeaseMs. */
  shutdownGraceMs: number;
}

const LEASE_MARGIN_MS = 5_000;

export function loadCallbackWorkerConfig(env: NodeJS.ProcessEnv = process.env): CallbackWorkerConfig {
  const raw = loadConfig(callbackWorkerSettings, env);
  const problems: string[] = [];
  const signingKeys = parseCallbackSigningKeys(raw.CALLBACK_SIGNING_KEYS, problems);
  const allowedCidrs = parseCallbackAllowedCidrs(raw.CALLBACK_ALLOWED_CIDRS, raw.NODE_ENV === 'production', problems);
  checkRedisUrl(raw, raw.NODE_ENV === 'production', problems);
  const attemptLeaseMs = Math.round(raw.CALLBACK_ATTEMPT_TIMEOUT_SECONDS * 1000) + LEASE_MARGIN_MS;
  const shutdownGraceMs = Math.round(raw.CALLBACK_SHUTDOWN_GRACE_SECONDS * 1000);
  if (shutdownGraceMs <= attemptLeaseMs) {
    // An attempt that starts just before SIGTERM runs to its deadline; its record may be retried
    // until its lease ends: the process must outlive both.
    const atLeast = Math.floor(attemptLeaseMs / 1000) + 1;
    problems.push(
      `CALLBACK_SHUTDOWN_GRACE_SECONDS: must be longer than CALLBACK_ATTEMPT_TIMEOUT_SECONDS + ${LEASE_MARGIN_MS / 1000} (${atLeast} ` +
        `or more here), so an attempt in flight and its record finish before the process exits`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const http = {
    connectTimeoutMs: Math.round(raw.CALLBACK_CONNECT_TIMEOUT_SECONDS * 1000),
    headersTimeoutMs: Math.round(raw.CALLBACK_HEADERS_TIMEOUT_SECONDS * 1000),
    bodyTimeoutMs: Math.round(raw.CALLBACK_BODY_TIMEOUT_SECONDS * 1000),
    attemptTimeoutMs: Math.round(raw.CALLBACK_ATTEMPT_TIMEOUT_SECONDS * 1000),
    maxResponseBytes: raw.CALLBACK_MAX_RESPONSE_BYTES,
    userAgent: gatewayUserAgent(),
  };
  return {
    raw,
    signingKeys,
    allowedCidrs,
    http,
    retrySchedules: {
      failure: {
        firstDelayMs: raw.CALLBACK_RETRY_FIRST_DELAY_MS,
        maxDelayMs: raw.CALLBACK_RETRY_MAX_DELAY_MS,
        maxRetries: raw.CALLBACK_RETRY_MAX_RETRIES,
        jitter: DEFAULT_CALLBACK_RETRY_SCHEDULE.jitter,
      },
      refusal: {
        firstDelayMs: raw.CALLBACK_REFUSAL_RETRY_FIRST_DELAY_MS,
        maxDelayMs: raw.CALLBACK_REFUSAL_RETRY_MAX_DELAY_MS,
        maxRetries: raw.CALLBACK_REFUSAL_RETRY_MAX_RETRIES,
        jitter: DEFAULT_CALLBACK_REFUSAL_SCHEDULE.jitter,
      },
    },
    attemptLeaseMs,
    shutdownGraceMs,
  };
}
