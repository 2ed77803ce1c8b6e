export * from './test-schema';
export * from './anvil';
export * from './redis-server';
export * from './tcp-forwarder';
export * from './rpc-proxy';
export * from './test-redis';
export * from './alert-rules';
export * from './documented-settings';
