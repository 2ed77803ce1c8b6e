import { sampleOrder } from '../../../test/support/adapter-contract';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { memorySharedStore } from '../../../test/support/memory-shared-store';
import { describeSessionAdapter } from '../../../test/support/session-adapter-suite';
import { sentWertBody, WERT_PARTNER_ID, wertSession } from '../../../test/support/wert-session';
import { createProviderRegistry, POLYGON_USDC } from '../../index';
import { werteur } from './werteur-adapter';

const kit = describeSessionAdapter(wertSession(werteur));
const { http } = kit;

describe('werteur: Wert in EUR, on the Wert account', () => {
  it("opens a Wert session in EUR; the widget is Wert's, with our click_id", async () => {
    const adapter = await kit.build('live');
    const order = sampleOrder('EUR');
    const { url } = redirectCheckout(await kit.open(order, { adapter }));
    expect(kit.fake.requests[0]).toMatchObject({ method: 'POST', path: '/api/external/hpp/create-session' });
    expect(sentWertBody(kit.fake, 0)).toMatchObject({
      flow_type: 'simple_full_restrict',
      commodity: 'USDC',
      network: 'polygon',
      currency: 'EUR',
    });
    expect(new URL(url).origin).toBe('https://widget.wert.io');
    expect(new URL(url).searchParams.get('click_id')).toBe(order.paymentId);
    expect(werteur.descriptor).toMatchObject({ currency: 'EUR', minimumCurrency: 'EUR', account: 'wert', webhookUnsigned: true });
    expect(adapter.status).toBeInstanceOf(Function);
  });

  it('its webhooks arrive at /webhooks/wert and may be about payments of both; none is received at /webhooks/werteur', async () => {
    const wertEnv = (id: string) => ({
      [`PROVIDER_${id}_PARTNER_ID`]: WERT_PARTNER_ID,
      [`PROVIDER_${id}_API_KEY`]: kit.fake.apiKey,
      [`PROVIDER_${id}_MODE`]: 'live',
    });
    const build = (env: Record<string, string>) =>
      createProviderRegistry({
        env,
        production: true,
        publicUrl: 'https://pay.example.org',
        token: { chainId: 137, address: POLYGON_USDC.native },
        http,
        sharedStore: memorySharedStore(),
      });
    const both = await build({ ...wertEnv('WERT'), ...wertEnv('WERTEUR') });
    expect(both.webhookReceiver('wert')?.providers).toEqual(['wert', 'werteur']);
    expect(both.webhookReceiver('werteur')).toBeUndefined();
    expect(both.offered.map((provider) => provider.id)).toEqual(['wert', 'werteur']);
    const euroOnly = await build(wertEnv('WERTEUR'));
    expect(euroOnly.webhookReceiver('wert')).toMatchObject({ adapter: { descriptor: { id: 'werteur' } }, providers: ['werteur'] });
    expect(euroOnly.notOfferedReason('wert')).toBe('not configured by this operator');
  });
});
