import { contractContext, describeAdapterContract, sampleOrder } from '../../../test/support/adapter-contract';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { startWertFake, type WertFake } from '../../../test/support/wert-fake';
import { createProviderRegistry, POLYGON_USDC } from '../../index';
import { createProviderHttpClient } from '../../support/provider-http-client';
import { memorySharedStore } from '../../../test/support/memory-shared-store';
import { werteur } from './werteur-adapter';

const PARTNER_ID = '01GJMAVBKQYNKGCFSPE4QTN4AC';

let fake: WertFake;
beforeAll(async () => {
  fake = await startWertFake();
});
beforeEach(() => fake.reset());
afterAll(async () => {
  await http.close();
  await fake.close();
});

const http = createProviderHttpClient({ attemptTimeoutMs: 400, maxAttempts: 3, backoffBaseMs: 1 });
const settings = () => ({
  PARTNER_ID,
  get API_KEY() {
    return fake.apiKey;
  },
  get API_URL() {
    return fake.url;
  },
});
const sentBody = (index: number) => JSON.parse(fake.requests[index]!.text) as Record<string, unknown>;

describeAdapterContract({
  module: werteur,
  settings: { live: settings(), test: settings() },
  context: () => ({ http }),
  readCheckout: (url) => {
    expect(url.pathname).toBe(`/${PARTNER_ID}/widget`);
    const body = sentBody(fake.requests.length - 1);
    return {
      wallet: String(body.wallet_address),
      amount: String(body.currency_amount),
      currency: String(body.currency),
      reference: url.searchParams.get('click_id') ?? '',
    };
  },
});

describe('werteur: Wert in EUR, on the Wert account', () => {
  it("opens a Wert session in EUR; the widget is Wert's, with our click_id", async () => {
    const adapter = await werteur.create({ ...settings() }, contractContext('werteur', 'live', { http }));
    const order = sampleOrder('EUR');
    const { url } = redirectCheckout(
      await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: AbortSignal.timeout(3000) }),
    );
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/api/external/hpp/create-session' });
    expect(sentBody(0)).toMatchObject({ flow_type: 'simple_full_restrict', commodity: 'USDC', network: 'polygon', currency: 'EUR' });
    expect(new URL(url).origin).toBe('https://widget.wert.io');
    expect(new URL(url).searchParams.get('click_id')).toBe(order.paymentId);
    expect(werteur.descriptor).toMatchObject({ currency: 'EUR', minimumCurrency: 'EUR', account: 'wert', webhookUnsigned: true });
    expect(adapter.status).toBeInstanceOf(Function);
  });

  it('its webhooks arrive at /webhooks/wert and may be about payments of both; none is received at /webhooks/werteur', async () => {
    const wertEnv = (id: string) => ({
      [`PROVIDER_${id}_PARTNER_ID`]: PARTNER_ID,
      [`PROVIDER_${id}_API_KEY`]: fake.apiKey,
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
