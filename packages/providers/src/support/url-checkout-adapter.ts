import { ProviderWebhookError } from '../provider-contract';
import type {
  AdapterContext,
  CheckoutOrder,
  ProviderAdapter,
  ProviderDescriptor,
  WebhookHeaders,
  WebhookOutcome,
} from '../provider-contract';
import { providerAdapter } from './provider-adapter';

/**
 * The adapter of a provider whose checkout is a URL built here, with no call to the provider,
 * on the host of the context's mode. Without `verifyWebhook` the provider signs no webhook this
 * gateway can verify, and every one is refused.
 */
export function urlCheckoutAdapter(
  descriptor: ProviderDescriptor,
  context: AdapterContext,
  checkoutUrl: (order: CheckoutOrder, host: string) => string,
  verifyWebhook?: (rawBody: Buffer, headers: WebhookHeaders) => Promise<WebhookOutcome>,
): ProviderAdapter {
  const host = descriptor.hosts[context.mode];
  return providerAdapter(descriptor, context, {
    createCheckout: async (order) => ({ kind: 'redirect', url: checkoutUrl(order, host) }),
    verifyWebhook:
      verifyWebhook ??
      (async () => {
        throw new ProviderWebhookError(
          `${descriptor.displayName} documents no webhook signature this gateway can verify; its webhooks are not accepted`,
        );
      }),
  });
}
