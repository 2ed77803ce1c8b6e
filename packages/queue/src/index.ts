export * from './queue-names';
export * from './job-payloads';
export * from './connection';
export * from './callback-queue';
export * from './settlement-queue';
