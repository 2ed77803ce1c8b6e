export * from './queue-names';
export * from './job-payloads';
export * from './connection';
export * from './callback-queue';
export * from './settlement-queue';
export * from './provider-status-queue';
export * from './queue-marker';
export * from './job-reconciling';
