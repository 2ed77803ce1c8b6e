export * from './callback-signature';
export * from './jwk';
export * from './payment-link';
export * from './affiliate-consent';
