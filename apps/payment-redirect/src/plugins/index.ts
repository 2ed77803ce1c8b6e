// The app's plugins, one file each (pages/: the pages' services; provider-status/: what the providers
// report; queues/: the provider-status queue's producer, reconciler and consumer; checkout-signals/:
// what the hosted checkout's ranking reads live); app.ts registers them in boot order.
export { providerMetrics } from './provider-metrics';
export { providers } from './providers';
export { providerStatusQueue } from './queues/provider-status-queue';
export { providerStatusService } from './provider-status/provider-status-service';
export { providerStatusReconciler } from './queues/provider-status-reconciler';
export { providerStatusConsumer } from './queues/provider-status-consumer';
export { providerEventConsumer } from './provider-status/provider-event-consumer';
export { providerCircuitBreaker } from './checkout-signals/provider-circuit-breaker';
export { checkoutPorts } from './checkout-signals/checkout-ports';
export { providerCheckout } from './pages/provider-checkout';
export { quoteService } from './pages/quote-service';
export { paymentService } from './pages/payment-service';
export { checkoutLinkService } from './pages/checkout-link-service';
export { secondChanceService } from './pages/second-chance-service';
export { restService } from './pages/rest-service';
export { receiptService } from './pages/receipt-service';
export { hostedCheckoutService } from './pages/hosted-checkout-service';
export { recoveryMail } from './queues/recovery-mail';
