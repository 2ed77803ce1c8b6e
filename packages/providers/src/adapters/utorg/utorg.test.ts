import { contractContext, describeAdapterContract, sampleOrder } from '../../../test/support/adapter-contract';
import { ProviderWebhookError } from '../../provider-contract';
import { utorg } from './utorg-adapter';
import { redirectCheckout } from '../../../test/support/checkout-target';

const settings = { SID: 'Np3qdvMIRU' };

/** The direct link's path as UTORG partners use it: /direct/{SID}/{address}/. */
function directPath(url: URL): { sid: string; address: string } {
  const [, direct, sid = '', address = ''] = url.pathname.split('/');
  expect(direct).toBe('direct');
  return { sid: decodeURIComponent(sid), address: decodeURIComponent(address) };
}

describeAdapterContract({
  module: utorg,
  settings: { live: settings, test: settings },
  // The wallet is the link's second path segment; amount, fiat and our reference carry UTORG's
  // order/init names (paymentAmount, paymentCurrency, externalId).
  readCheckout: (url) => ({
    wallet: directPath(url).address,
    amount: url.searchParams.get('paymentAmount') ?? '',
    currency: url.searchParams.get('paymentCurrency') ?? '',
    reference: url.searchParams.get('externalId') ?? '',
  }),
});

describe('utorg direct link', () => {
  const checkout = async (mode: 'live' | 'test') => {
    const adapter = await utorg.create(settings, contractContext('utorg', mode));
    const order = sampleOrder('EUR');
    const created = await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: new AbortController().signal });
    return new URL(redirectCheckout(created).url);
  };

  it('puts the SID and the wallet in the path and asks for USDC on Polygon', async () => {
    const url = await checkout('live');
    expect(directPath(url)).toEqual({ sid: settings.SID, address: sampleOrder('EUR').walletAddress });
    expect(url.pathname.endsWith('/')).toBe(true);
    expect(url.searchParams.get('currency')).toBe('USDCPOL');
    expect(url.searchParams.get('paymentCurrency')).toBe('EUR');
  });

  it('passes the e-mail encoded and sends the customer back to the receipt page either way', async () => {
    const url = await checkout('live');
    expect(url.search).toContain('email=jane%2Btest%40shop.io');
    const receipt = sampleOrder('EUR').returnUrl;
    expect(url.searchParams.get('successUrl')).toBe(receipt);
    expect(url.searchParams.get('failUrl')).toBe(receipt);
    // No postback URL: UTORG's postbacks carry no documented signature.
    expect(url.searchParams.has('postbackUrl')).toBe(false);
  });

  it('opens app-stage.utorg.pro in test mode and app.utorg.pro in live mode', async () => {
    expect((await checkout('test')).origin).toBe('https://app-stage.utorg.pro');
    expect((await checkout('live')).origin).toBe('https://app.utorg.pro');
  });

  it('refuses a SID that could leave its path segment', () => {
    const pattern = new RegExp(utorg.descriptor.settings.properties.SID.pattern!);
    expect(pattern.test('Np3qdvMIRU')).toBe(true);
    expect(pattern.test('wallet.near.org')).toBe(true);
    expect(pattern.test('a/../b')).toBe(false);
    expect(pattern.test('a?x=1')).toBe(false);
  });

  it('accepts no postback, since UTORG documents no signature to verify', async () => {
    const adapter = await utorg.create(settings, contractContext('utorg', 'live'));
    await expect(adapter.verifyWebhook(Buffer.from('{"status":"COMPLETED"}'), {})).rejects.toBeInstanceOf(ProviderWebhookError);
  });

  it('takes its mode from PROVIDER_UTORG_MODE, live unless asked', () => {
    expect(utorg.modeOf(settings, undefined)).toBe('live');
    expect(utorg.modeOf(settings, 'test')).toBe('test');
  });
});
