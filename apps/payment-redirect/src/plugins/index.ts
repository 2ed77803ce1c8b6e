// The app's plugins, one file each; app.ts registers them in boot order.
export { providerMetrics } from './provider-metrics';
export { providers } from './providers';
export { paymentReceipts } from './payment-receipts';
export { providerStatusQueue } from './provider-status-queue';
export { providerStatusService } from './provider-status-service';
export { statusPollReconciler } from './status-poll-reconciler';
export { providerEventConsumer } from './provider-event-consumer';
export { paymentService } from './payment-service';
export { receiptService } from './receipt-service';
export { hostedCheckoutService } from './hosted-checkout-service';
