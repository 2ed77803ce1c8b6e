import { runApiApp } from '@gateway/http';
import { ProviderConfigurationError } from '@gateway/providers';
import { buildPaymentRedirectApp } from './app';
import { loadPaymentRedirectConfig } from './config';

runApiApp({
  name: 'payment-redirect',
  loadConfig: loadPaymentRedirectConfig,
  refusals: [ProviderConfigurationError],
  build: (config, { pool, redis }) => buildPaymentRedirectApp({ config, pool, redis }),
});
