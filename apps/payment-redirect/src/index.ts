export { buildPaymentRedirectApp, type PaymentRedirectDeps } from './app';
export { loadPaymentRedirectConfig, type PaymentRedirectConfig } from './config';
export type { CheckoutPorts, CheckoutQuotes, CheckoutSignals, QuoteOrder, RowQuote } from './services/checkout-rows';
