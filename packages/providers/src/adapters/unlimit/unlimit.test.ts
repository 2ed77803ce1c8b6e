import { contractContext, describeAdapterContract, sampleOrder } from '../../../test/support/adapter-contract';
import { ProviderWebhookError } from '../../provider-contract';
import { unlimit } from './unlimit-adapter';
import { redirectCheckout } from '../../../test/support/checkout-target';

const live = { MERCHANT_ID: '9e34f479-b43a-4372-8bdf-90689e16cd5b' };
const test = { MERCHANT_ID: '1a3d8f5d-5adb-4525-8eee-efdbcc220285' };

describeAdapterContract({
  module: unlimit,
  settings: { live, test },
  // Unlimit's hosted-mode names: the wallet is `wallet`, our reference `externalId`.
  readCheckout: { wallet: 'wallet', amount: 'fiatAmount', currency: 'fiatCurrency', reference: 'externalId' },
});

describe('unlimit hosted-mode URL', () => {
  const checkout = async (mode: 'live' | 'test') => {
    const adapter = await unlimit.create(mode === 'live' ? live : test, contractContext('unlimit', mode));
    const order = sampleOrder('EUR');
    const created = await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: new AbortController().signal });
    return new URL(redirectCheckout(created).url);
  };

  it('buys USDC on Polygon by card, with asset, fiat, amount and wallet locked', async () => {
    const query = (await checkout('live')).searchParams;
    expect(query.get('merchantId')).toBe(live.MERCHANT_ID);
    expect(query.get('cryptoCurrency')).toBe('USDC-POLYGON');
    expect(query.get('payment')).toBe('BANKCARD');
    for (const lock of ['cryptoCurrencyLock', 'fiatCurrencyLock', 'fiatAmountLock', 'walletLock']) {
      expect(query.get(lock)).toBe('true');
    }
  });

  it('passes the e-mail encoded and returns the customer to the receipt page on every outcome', async () => {
    const url = await checkout('live');
    expect(url.search).toContain('email=jane%2Btest%40shop.io');
    expect(url.search).toContain('successUrl=https%3A%2F%2Fpay.example.org%2Fpayment%2F');
    const receipt = sampleOrder('EUR').returnUrl;
    for (const name of ['successUrl', 'declineUrl', 'cancelUrl', 'redirectUrl']) {
      expect(url.searchParams.get(name)).toBe(receipt);
    }
  });

  it('opens onramp-sandbox.gatefi.com in test mode and onramp.gatefi.com in live mode', async () => {
    expect((await checkout('test')).origin).toBe('https://onramp-sandbox.gatefi.com');
    expect((await checkout('live')).origin).toBe('https://onramp.gatefi.com');
  });

  it('accepts no webhook, since Unlimit documents no signature to verify', async () => {
    const adapter = await unlimit.create(live, contractContext('unlimit', 'live'));
    await expect(adapter.verifyWebhook(Buffer.from('{"status":"COMPLETED"}'), { 'x-signature': 'ab'.repeat(32) })).rejects.toBeInstanceOf(
      ProviderWebhookError,
    );
  });

  it('takes its mode from PROVIDER_UNLIMIT_MODE, live unless asked', () => {
    expect(unlimit.modeOf(live, undefined)).toBe('live');
    expect(unlimit.modeOf(test, 'test')).toBe('test');
  });
});
