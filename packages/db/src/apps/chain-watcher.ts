// @gateway/db/chain-watcher: what every app shares, and the repositories chain-watcher runs and no other, so a repository
// of tables its PostgreSQL role may not touch (app-privileges.sql) does not compile there. packages/db/test/app-roles.test.ts
// runs each method the app calls as its role, and checks this list against the repositories the app's source uses.
export * from '../index';
export * from '../repositories/deposit-repository';
export * from '../repositories/chain-cursor-repository';
export * from '../repositories/token-repository';
