import { contractContext, describeAdapterContract, sampleOrder } from '../../../test/support/adapter-contract';
import { ProviderWebhookError } from '../../provider-contract';
import { kado } from './kado-adapter';
import { redirectCheckout } from '../../../test/support/checkout-target';

const settings = { API_KEY: '7f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0' };

describeAdapterContract({
  module: kado,
  settings: { live: settings, test: settings },
  // Kado's widget parameters as its URL-redirect page names them; our reference is `userRef`.
  readCheckout: (url) => ({
    wallet: url.searchParams.get('onToAddress') ?? '',
    amount: url.searchParams.get('onPayAmount') ?? '',
    currency: url.searchParams.get('onPayCurrency') ?? '',
    reference: url.searchParams.get('userRef') ?? '',
  }),
});

describe('kado widget URL', () => {
  const checkout = async (mode: 'live' | 'test') => {
    const adapter = await kado.create(settings, contractContext('kado', mode));
    const order = sampleOrder('USD');
    const created = await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: new AbortController().signal });
    return new URL(redirectCheckout(created).url);
  };

  it('buys USDC on Polygon by card only, with the lists locked to that choice', async () => {
    const query = (await checkout('live')).searchParams;
    expect(query.get('apiKey')).toBe(settings.API_KEY);
    expect(query.get('product')).toBe('BUY');
    expect(query.get('productList')).toBe('BUY');
    expect(query.get('onRevCurrency')).toBe('USDC');
    expect(query.get('cryptoList')).toBe('USDC');
    expect(query.get('network')).toBe('POLYGON');
    expect(query.get('networkList')).toBe('POLYGON');
    expect(query.get('fiatMethodList')).toBe('card');
  });

  it('passes the e-mail encoded, and the amount as the decimal string it was given', async () => {
    const url = await checkout('live');
    expect(url.search).toContain('email=jane%2Btest%40shop.io');
    expect(url.searchParams.get('email')).toBe('jane+test@shop.io');
    expect(url.searchParams.get('onPayAmount')).toBe('149.99');
  });

  it('opens the sandbox widget in test mode and app.kado.money in live mode', async () => {
    expect((await checkout('test')).origin).toBe('https://sandbox--kado.netlify.app');
    expect((await checkout('live')).origin).toBe('https://app.kado.money');
  });

  it('accepts no webhook, since Kado documents no signature to verify', async () => {
    const adapter = await kado.create(settings, contractContext('kado', 'live'));
    await expect(adapter.verifyWebhook(Buffer.from('{"type":"order.completed"}'), { 'x-signature': 'anything' })).rejects.toBeInstanceOf(
      ProviderWebhookError,
    );
  });

  it('takes its mode from PROVIDER_KADO_MODE, live unless asked', () => {
    expect(kado.modeOf(settings, undefined)).toBe('live');
    expect(kado.modeOf(settings, 'test')).toBe('test');
  });
});
