// @gateway/db/settlement-worker: what every app shares, and the repositories settlement-worker runs and no other, so a repository
// of tables its PostgreSQL role may not touch (app-privileges.sql) does not compile there. packages/db/test/app-roles.test.ts
// runs each method the app calls as its role, and checks this list against the repositories the app's source uses.
export * from '../index';
export * from '../repositories/settlement-repository';
export * from '../repositories/payout-repository';
export * from '../repositories/hd-key-repository';
export * from '../repositories/gateway-address-repository';
export * from '../repositories/wallet-lookup-repository';
export * from '../repositories/token-repository';
export * from '../repositories/operator-payout-repository';
