export * from './create-server';
export * from './run-server';
export * from './log-redaction';
export type { ReadinessCheck } from './plugins/health';
