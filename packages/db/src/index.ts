export * from './pool';
export * from './migrate';
export * from './repositories/wallet-repository';
export * from './repositories/payment-repository';
export * from './repositories/callback-delivery-writer';
