// The app's plugins, one file each; app.ts registers them in boot order.
export { callbackQueue } from './callback-queue';
export { callbackMetrics } from './callback-metrics';
export { callbackReconciler } from './callback-reconciler';
export { callbackConsumer } from './callback-consumer';
