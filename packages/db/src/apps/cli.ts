// @gateway/db/cli: what every app shares, and what the operator CLI (apps/cli) runs with the owner's
// login: a wallet's whole story and where its order stands, the resend of a failed or refused callback, the
// release of a callback URL, a merchant's ledger. The settlement operations it runs come from the settlement worker's own
// entry (operator.ts).
export * from '../index';
export * from '../repositories/wallet-story-repository';
export * from '../repositories/order-facts';
export * from '../repositories/callback-delivery-repository';
export * from '../repositories/wallet-repository';
export * from '../callback-resend';
export * from '../repositories/settlement-repository';
export * from '../repositories/ledger-repository';
export * from '../ledger-export';
export * from '../restore-check';
