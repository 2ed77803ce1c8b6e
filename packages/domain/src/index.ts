export * from './errors';
export * from './money';
export * from './evm-address';
export * from './callback-url';
export * from './callback-params';
export * from './provider-catalogue';
export * from './address-in-codec';
export * from './email';
