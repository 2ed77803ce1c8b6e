export * from './test-database';
export * from './test-keys';
export * from './api-app-fixture';
export * from './acl-redis';
export * from './seed-rows';
export * from './gateway-cli';
export * from './token-record-cases';
