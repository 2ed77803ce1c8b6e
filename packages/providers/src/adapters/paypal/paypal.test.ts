import { execFileSync } from 'node:child_process';
import { contractContext, describeAdapterContract, sampleOrder } from '../../../test/support/adapter-contract';
import { MOONPAY_KEYS, MOONPAY_LINK, MOONPAY_SIGNATURE, signedByMoonpay } from '../../../test/support/moonpay-account';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { paypal } from './paypal-adapter';

const { live, test } = MOONPAY_KEYS;

// MoonPay's webhook: the same account signs PayPal orders.
const transaction = (paymentId: string, walletAddress: string, status: string) => ({
  type: 'transaction_updated',
  data: { id: 'p1', status, externalTransactionId: paymentId, walletAddress },
});

describeAdapterContract({
  module: paypal,
  settings: { live, test },
  readCheckout: MOONPAY_LINK,
  signWebhook: ({ paymentId, walletAddress, status }, nowMs) =>
    signedByMoonpay(transaction(paymentId, walletAddress, status === 'paid' ? 'completed' : 'failed'), nowMs),
  webhookSignature: MOONPAY_SIGNATURE,
  hostile: {
    payload: ({ paymentId, walletAddress }) => transaction(paymentId, walletAddress, 'completed'),
    sign: signedByMoonpay,
  },
});

describe('paypal', () => {
  it('is a signed MoonPay link with PayPal preselected, in the order currency, on the MoonPay account', async () => {
    const adapter = await paypal.create(live, contractContext('paypal', 'live'));
    const order = sampleOrder('EUR');
    const { url } = redirectCheckout(await adapter.createCheckout(order, { idempotencyKey: 'x', signal: new AbortController().signal }));
    const link = new URL(url);
    expect(link.origin).toBe('https://buy.moonpay.com');
    expect(link.searchParams.get('paymentMethod')).toBe('paypal');
    expect(link.searchParams.get('baseCurrencyCode')).toBe('eur');
    const [unsigned, signature] = link.search.split('&signature=') as [string, string];
    expect(decodeURIComponent(signature)).toBe(
      execFileSync('openssl', ['dgst', '-sha256', '-hmac', live.SECRET_KEY, '-binary'], { input: unsigned }).toString('base64'),
    );
    expect(paypal.descriptor).toMatchObject({ currency: 'any', minimum: '20', account: 'moonpay' });
  });

  it('names its own MODE setting when it contradicts the keys', () => {
    expect(() => paypal.modeOf(test, 'live')).toThrow(/PROVIDER_PAYPAL_MODE=live contradicts the test keys/);
  });
});
