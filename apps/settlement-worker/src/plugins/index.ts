// The app's plugins, one file each (chain/: the chain and the relayer; queues/: the queues it
// produces to and consumes); app.ts registers them in boot order.
export { temporaryWalletKeys } from './chain/temporary-wallet-keys';
export { settlementChain } from './chain/settlement-chain';
export { settlementMetrics } from './settlement-metrics';
export { relayer } from './chain/relayer';
export { payoutFinality } from './chain/payout-finality';
export { relayerOutbox } from './chain/relayer-outbox';
export { callbackQueue } from './queues/callback-queue';
export { settlementQueue } from './queues/settlement-queue';
export { settlementService } from './settlement-service';
export { settlementReconciler } from './queues/settlement-reconciler';
export { settlementConsumer } from './queues/settlement-consumer';
