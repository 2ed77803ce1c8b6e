export * from './hd-wallet';
export * from './token';
export * from './crypto-backends';
export * from './log-ranges';
export * from './finality-follower';
export * from './finality-gauges';
export * from './finalized-tag';
