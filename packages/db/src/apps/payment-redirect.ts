// @gateway/db/payment-redirect: what every app shares, and the repositories payment-redirect runs and no other, so a repository
// of tables its PostgreSQL role may not touch (app-privileges.sql) does not compile there. packages/db/test/app-roles.test.ts
// runs each method the app calls as its role, and checks this list against the repositories the app's source uses.
export * from '../index';
export * from '../repositories/wallet-lookup-repository';
export * from '../repositories/payment-repository';
export * from '../repositories/payment-receipt-repository';
export * from '../repositories/provider-status-repository';
export * from '../repositories/provider-event-repository';
export * from '../repositories/token-repository';
export * from '../repositories/recovery-email-repository';
export * from '../repositories/checkout-measure-repository';
