import { checkPublicUrlResolves } from '@gateway/config';
import { runApiApp } from '@gateway/http';
import { ProviderConfigurationError } from '@gateway/providers';
import { buildPaymentRedirectApp } from './app';
import { loadPaymentRedirectConfig } from './config';

runApiApp({
  name: 'payment-redirect',
  // Provider status checks and recovery e-mails are BullMQ jobs: an evicted job is lost work (its
  // quote cache and provider tokens alone could be fetched again).
  queuesInRedis: true,
  loadConfig: loadPaymentRedirectConfig,
  refusals: [ProviderConfigurationError],
  build: async (config, { pool, redis }) => {
    // The settings' check judges PUBLIC_URL by its spelling; what its name resolves to is known only here, at boot.
    await checkPublicUrlResolves(config.publicUrl, config.production);
    return buildPaymentRedirectApp({ config, pool, redis });
  },
});
