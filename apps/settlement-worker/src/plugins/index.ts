// The app's plugins, one file each; app.ts registers them in boot order.
export { temporaryWalletKeys } from './temporary-wallet-keys';
export { settlementChain } from './settlement-chain';
export { settlementMetrics } from './settlement-metrics';
export { relayer } from './relayer';
export { payoutFinality } from './payout-finality';
export { relayerOutbox } from './relayer-outbox';
export { callbackQueue } from './callback-queue';
export { settlementService } from './settlement-service';
export { settlementRuntime } from './settlement-runtime';
