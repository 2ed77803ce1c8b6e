export * from './test-database';
export * from './test-keys';
export * from './anvil';
export * from './redis-server';
export * from './tcp-forwarder';
export * from './rpc-proxy';
export * from './test-redis';
export * from './api-app-fixture';
