// @gateway/db/wallet-control: what every app shares, and the repositories wallet-control runs and no other, so a repository
// of tables its PostgreSQL role may not touch (app-privileges.sql) does not compile there. packages/db/test/app-roles.test.ts
// runs each method the app calls as its role, and checks this list against the repositories the app's source uses.
export * from '../index';
export * from '../repositories/wallet-repository';
export * from '../repositories/hd-key-repository';
export * from '../repositories/token-repository';
export * from '../repositories/payment-status-repository';
export * from '../repositories/callback-delivery-repository';
export * from '../repositories/merchant-callback-repository';
export * from '../repositories/order-facts';
export * from '../callback-resend';
export * from '../repositories/ledger-repository';
export * from '../ledger-export';
