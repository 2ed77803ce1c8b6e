import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { contractContext, describeAdapterContract, sampleOrder } from '../../../test/support/adapter-contract';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { paypal } from './paypal-adapter';

const live = { API_KEY: 'pk_live_123456789abc', SECRET_KEY: 'sk_live_abcdefgh1234', WEBHOOK_KEY: 'wk_live_zyxwvuts9876' };
const test = { API_KEY: 'pk_test_123456789abc', SECRET_KEY: 'sk_test_abcdefgh1234', WEBHOOK_KEY: 'wk_test_zyxwvuts9876' };

// MoonPay's webhook, as its signature page describes it: the same account signs PayPal orders.
const signed = (payload: unknown, nowMs: number) => {
  const rawBody = Buffer.from(JSON.stringify(payload));
  const t = Math.floor(nowMs / 1000);
  const s = createHmac('sha256', live.WEBHOOK_KEY).update(`${t}.`).update(rawBody).digest('hex');
  return { rawBody, headers: { 'moonpay-signature-v2': `t=${t},s=${s}` } };
};
const transaction = (paymentId: string, walletAddress: string, status: string) => ({
  type: 'transaction_updated',
  data: { id: 'p1', status, externalTransactionId: paymentId, walletAddress },
});

describeAdapterContract({
  module: paypal,
  settings: { live, test },
  readCheckout: {
    wallet: 'walletAddress',
    amount: 'baseCurrencyAmount',
    currency: 'baseCurrencyCode',
    reference: 'externalTransactionId',
  },
  signWebhook: ({ paymentId, walletAddress, status }, nowMs) =>
    signed(transaction(paymentId, walletAddress, status === 'paid' ? 'completed' : 'failed'), nowMs),
  webhookSignature: { header: 'moonpay-signature-v2', encoding: 'hex', part: /(?<=,s=).*$/ },
  hostile: {
    payload: ({ paymentId, walletAddress }) => transaction(paymentId, walletAddress, 'completed'),
    sign: signed,
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
