export * from './create-server';
export * from './metrics-server';
export * from './run-server';
export * from './log-redaction';
export { recordOutcome } from './access-log';
export * from './negotiate';
export * from './redis-client';
export type { ReadinessCheck } from './plugins/health';
export * from './finality-gauges';
