export * from './test-database';
export * from './anvil';
