export * from './hd-wallet';
export * from './token';
export * from './secp256k1-backend';
