import { contractContext, describeAdapterContract, sampleOrder } from '../../../test/support/adapter-contract';
import { ProviderWebhookError } from '../../provider-contract';
import { particle } from './particle-adapter';
import { redirectCheckout } from '../../../test/support/checkout-target';

const settings = { LANGUAGE: 'en' as const };

/** Every parameter Particle's on-ramp page documents; the link may carry no other. */
const DOCUMENTED = [
  'network',
  'fiatCoin',
  'cryptoCoin',
  'fiatAmt',
  'cryptAmt',
  'fixFiatCoin',
  'fixCryptoCoin',
  'fixFiatAmt',
  'walletAddress',
  'theme',
  'language',
];

describeAdapterContract({
  module: particle,
  settings: { live: settings, test: settings },
  // Particle's on-ramp parameter names: walletAddress, fiatAmt, fiatCoin.
  readCheckout: { wallet: 'walletAddress', amount: 'fiatAmt', currency: 'fiatCoin' },
  // No order reference and no return URL are documented: the payment is known by its one-off wallet.
  carriesReference: false,
});

describe('particle ramp link', () => {
  const checkout = async (mode: 'live' | 'test') => {
    const adapter = await particle.create(settings, contractContext('particle', mode));
    const order = sampleOrder('EUR');
    const created = await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: new AbortController().signal });
    return new URL(redirectCheckout(created).url);
  };

  it('asks for USDC on Polygon with the currency, the asset and the amount fixed', async () => {
    const query = (await checkout('live')).searchParams;
    expect(query.get('network')).toBe('Polygon');
    expect(query.get('cryptoCoin')).toBe('USDC');
    expect(query.get('fiatCoin')).toBe('EUR');
    expect(query.get('fiatAmt')).toBe('149.99');
    for (const flag of ['fixCryptoCoin', 'fixFiatCoin', 'fixFiatAmt']) expect(query.get(flag)).toBe('true');
    expect(query.get('language')).toBe('en');
  });

  it('carries only documented parameters, so neither our reference nor the e-mail leaves the gateway', async () => {
    const url = await checkout('live');
    for (const name of url.searchParams.keys()) expect(DOCUMENTED).toContain(name);
    const order = sampleOrder('EUR');
    expect(url.toString()).not.toContain(order.paymentId);
    expect(decodeURIComponent(url.toString())).not.toContain(order.email);
  });

  it('opens ramp.particle.network in both modes, since Particle documents no sandbox', async () => {
    expect((await checkout('test')).origin).toBe('https://ramp.particle.network');
    expect((await checkout('live')).origin).toBe('https://ramp.particle.network');
    expect(particle.descriptor.hosts.test).toBe(particle.descriptor.hosts.live);
  });

  it('accepts no webhook, since Particle sends none', async () => {
    const adapter = await particle.create(settings, contractContext('particle', 'live'));
    await expect(adapter.verifyWebhook(Buffer.from('{}'), {})).rejects.toBeInstanceOf(ProviderWebhookError);
  });

  it('takes its mode from PROVIDER_PARTICLE_MODE, live unless asked', () => {
    expect(particle.modeOf(settings, undefined)).toBe('live');
    expect(particle.modeOf(settings, 'test')).toBe('test');
  });
});
