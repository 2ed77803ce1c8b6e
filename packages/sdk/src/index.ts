export * from './affiliate-consent';
export * from './callback-order';
export * from './callback-signature';
export * from './gateway-client';
export * from './jwk';
export * from './payment-link';
export * from './pinned-keys';
export * from './callback-key-set';
