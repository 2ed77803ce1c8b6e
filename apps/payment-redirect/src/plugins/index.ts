// The app's plugins, one file each; app.ts registers them in boot order.
export { providerMetrics } from './provider-metrics';
export { providers } from './providers';
export { providerStatusQueue } from './provider-status/provider-status-queue';
export { providerStatusService } from './provider-status/provider-status-service';
export { askProviderWorker } from './provider-status/ask-provider-worker';
export { providerEventConsumer } from './provider-status/provider-event-consumer';
export { providerCheckout } from './pages/provider-checkout';
export { paymentService } from './pages/payment-service';
export { checkoutLinkService } from './pages/checkout-link-service';
export { secondChanceService } from './pages/second-chance-service';
export { receiptService } from './pages/receipt-service';
export { hostedCheckoutService } from './pages/hosted-checkout-service';
