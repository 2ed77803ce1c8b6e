// The app's plugins, one file each (queues/: the callbacks queue, its reconciler and its consumer);
// app.ts registers them in boot order.
export { callbackQueue } from './queues/callback-queue';
export { callbackMetrics } from './callback-metrics';
export { callbackReconciler } from './queues/callback-reconciler';
export { callbackConsumer } from './queues/callback-consumer';
