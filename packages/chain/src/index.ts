export * from './hd-wallet';
export * from './token';
