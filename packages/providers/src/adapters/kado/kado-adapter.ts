import { Type } from '@sinclair/typebox';
import { defineProvider, modeFromSetting, type CheckoutOrder, type ProviderDescriptor } from '../../provider-contract';
import { urlCheckoutAdapter } from '../../support/url-checkout-adapter';

/**
 * Kado: a plain widget URL, unsigned.
 *
 * Status: Kado was acquired and wound its ramp down in 2025 (matter-labs/zksync-docs PR #364,
 * 2025-05-01: "Kado has been acquired and is shutting down their services"); docs.kado.money no
 * longer answers. This adapter builds what Kado's documentation described, for an operator who
 * still holds a working Kado widget key.
 *
 * - Widget URL: https://docs.kado.money/kado-ramp-widget/integrating-the-kado-ramp-widget/url-redirect
 *   — `app.kado.money/?apiKey=…` with onPayCurrency, onPayAmount, onRevCurrency, onToAddress,
 *   network, product, email, and the list locks cryptoList, networkList, productList,
 *   fiatMethodList; `userRef` is the partner's reference that Kado keeps on the order (it comes back
 *   as `userRef` in GET /v2/public/orders/{id}).
 * - Test host: https://sandbox--kado.netlify.app, Kado's sandbox widget as integrators use it
 *   (Edge wallet's Kado plugin pairs it with https://test-api.kado.money); no Kado page naming it
 *   could be read.
 * - Webhooks: Kado's "Advanced" page (docs.kado.money/integrations/integrate-kado/the-hybrid-api/
 *   advanced) has Kado enable a partner-wide webhook by hand and says "additional headers" let you
 *   verify it, but the scheme itself is not in any copy of the docs that could be read. Without a
 *   documented signature nothing is accepted (webhook: null); the chain watcher is the source of
 *   truth either way.
 *
 * Choices where the docs are open: `network=POLYGON` (the upper-case network names Kado's examples
 * use; Kado's blockchain origin is `polygon`); `fiatMethodList=card` restricts the widget to card
 * (the value integrators pass; Kado's quote API splits it into debit_card/credit_card); no return URL
 * is sent, because Kado documents none for the redirect integration (the widget reports completion
 * by postMessage only), so the customer comes back through the gateway's own receipt link.
 */

const settings = Type.Object({
  API_KEY: Type.String({
    pattern: '^[A-Za-z0-9-]{8,128}$',
    description: "Kado widget API key (apiKey, also sent as X-Widget-Id to Kado's API), issued by Kado at onboarding",
  }),
});

/** What Kado names USDC and Polygon in its widget parameters. */
export const KADO_ASSET = 'USDC';
export const KADO_NETWORK = 'POLYGON';

const descriptor: ProviderDescriptor<typeof settings> = {
  id: 'kado',
  displayName: 'Kado',
  currency: 'any',
  minimum: '10',
  minimumCurrency: 'USD',
  flow: 'url',
  webhook: null,
  delivers: 'native',
  settings,
  hosts: { live: 'https://app.kado.money', test: 'https://sandbox--kado.netlify.app' },
  docs: 'https://docs.kado.money/kado-ramp-widget/integrating-the-kado-ramp-widget/url-redirect',
};

export const kado = defineProvider({
  descriptor,
  modeOf: modeFromSetting,
  create: (values, context) => urlCheckoutAdapter(descriptor, context, (order, host) => kadoWidgetUrl(host, values.API_KEY, order)),
});

export function kadoWidgetUrl(host: string, apiKey: string, order: CheckoutOrder): string {
  const url = new URL(host);
  const query = url.searchParams;
  query.append('apiKey', apiKey);
  query.append('product', 'BUY');
  query.append('productList', 'BUY');
  query.append('onPayCurrency', order.currency);
  query.append('onPayAmount', order.amount);
  query.append('onRevCurrency', KADO_ASSET);
  query.append('cryptoList', KADO_ASSET);
  query.append('network', KADO_NETWORK);
  query.append('networkList', KADO_NETWORK);
  query.append('onToAddress', order.walletAddress);
  query.append('fiatMethodList', 'card');
  query.append('email', order.email);
  query.append('userRef', order.paymentId);
  return url.toString();
}
