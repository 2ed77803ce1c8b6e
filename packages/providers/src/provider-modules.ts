import type { ProviderModule } from './provider-contract';
import { moonpay } from './adapters/moonpay/moonpay-adapter';

/**
 * Every provider with an adapter, in the order the hosted checkout lists them. Adding one is its
 * folder under adapters/ and one line here.
 */
export const PROVIDER_MODULES: readonly ProviderModule[] = [
  moonpay,
];
