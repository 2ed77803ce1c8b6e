export * from './create-server';
export * from './metrics-server';
export * from './run-app';
// Its declarations (app.settleBeforeClose, app.requestsSettled) for every app built on createServer.
import './requests-in-flight';
export * from './log-redaction';
export { recordOutcome } from './access-log';
export { withDirective } from './plugins/security-headers';
export { errorBodySchema } from './plugins/error-handler';
export { postgresPlugin } from './plugins/postgres';
export { rateReaderPlugin } from './plugins/rate-reader';
export { redisPlugin } from './plugins/redis';
export { keyedRateLimit, type KeyedRateLimit, type KeyedRateLimitCheck } from './plugins/rate-limit';
export * from './negotiate';
export * from './redis-client';
export type { ReadinessCheck } from './plugins/health';
