export { buildPaymentRedirectApp, type PaymentRedirectDeps } from './app';
export { loadPaymentRedirectConfig, type PaymentRedirectConfig } from './config';
