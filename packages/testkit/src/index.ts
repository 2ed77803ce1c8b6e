export * from './test-database';
export * from './test-keys';
export * from './anvil';
export * from './redis-server';
export * from './tcp-forwarder';
export * from './test-redis';
export * from './api-app-fixture';
