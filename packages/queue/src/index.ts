export * from './queue-names';
export * from './job-payloads';
export * from './connection';
export * from './default-job-options';
export * from './callback-queue';
