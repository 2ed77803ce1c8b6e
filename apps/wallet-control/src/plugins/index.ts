// The app's plugins, one file each; app.ts registers them in boot order.
export { addressDeriver } from './address-deriver';
export { tokenCheck } from './token-check';
export { walletControlMetrics } from './metrics';
export { payoutQuota } from './payout-quota';
export { walletService } from './wallet-service';
export { paymentStatusService } from './payment-status-service';
export { callbackResendService } from './callback-resend-service';
