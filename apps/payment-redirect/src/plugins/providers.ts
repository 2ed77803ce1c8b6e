import fp from 'fastify-plugin';
import { ProviderEventRepository } from '@gateway/db/payment-redirect';
import { createProviderHttpClient, createProviderRegistry, type ProviderRegistry } from '@gateway/providers';
import type { PaymentRedirectConfig } from '../config';
import { redisSharedStore } from '../services/redis-shared-store';

declare module 'fastify' {
  interface FastifyInstance {
    providers: ProviderRegistry;
  }
}

/**
 * Before anything listens: every provider's credentials checked, its adapter built; the sandbox
 * only where SANDBOX_CHECKOUT=on (never in production).
 */
export const providers = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    const providerHttp = createProviderHttpClient();
    const registry = await createProviderRegistry({
      env: raw,
      ...(config.sandbox ? { sandbox: config.sandbox } : {}),
      production: config.production,
      publicUrl: config.publicUrl,
      token: { chainId: raw.CHAIN_ID, address: raw.USDC_TOKEN_ADDRESS },
      http: providerHttp,
      // Tokens that outlive a request (Transak's access token) are shared by every replica.
      sharedStore: redisSharedStore(app.redis, raw.REDIS_PREFIX),
      // Events read from a provider's queue (Simplex's), kept where every replica's look-ups read them.
      events: new ProviderEventRepository(app.pool),
      observer: app.providerMetrics.checkout,
    }).catch(async (error: unknown) => {
      await providerHttp.close();
      throw error;
    });
    app.addHook('onClose', () => providerHttp.close());
    for (const adapter of registry.adapters) {
      if (adapter.mode !== 'live')
        app.log.warn(
          { provider: adapter.descriptor.id, mode: adapter.mode },
          'provider in a non-live mode: its checkouts take no real money',
        );
    }
    app.log.info({ offered: registry.offered.map((provider) => provider.id) }, 'providers offered');
    app.decorate('providers', registry);
  },
  { name: 'providers', dependencies: ['postgres', 'redis', 'provider-metrics'] },
);
