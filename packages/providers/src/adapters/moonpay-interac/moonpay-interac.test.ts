import { execFileSync } from 'node:child_process';
import { describeAdapterContract } from '../../../test/support/adapter-contract';
import { MOONPAY_KEYS, MOONPAY_LINK, MOONPAY_SIGNATURE, signedByMoonpay } from '../../../test/support/moonpay-account';
import { interac } from './moonpay-interac-adapter';
import { redirectCheckout } from '../../../test/support/checkout-target';

const { live, test } = MOONPAY_KEYS;

const interacTransaction = (paymentId: string, walletAddress: string, status: string) => ({
  type: 'transaction_updated',
  data: { id: 'i1', status, externalTransactionId: paymentId, walletAddress },
});

describeAdapterContract({
  module: interac,
  settings: { live, test },
  readCheckout: MOONPAY_LINK,
  // MoonPay's webhook: the same account signs Interac orders.
  signWebhook: ({ paymentId, walletAddress, status }, nowMs) =>
    signedByMoonpay(interacTransaction(paymentId, walletAddress, status === 'paid' ? 'completed' : 'failed'), nowMs),
  webhookSignature: MOONPAY_SIGNATURE,
  hostile: {
    payload: ({ paymentId, walletAddress }) => interacTransaction(paymentId, walletAddress, 'completed'),
    sign: signedByMoonpay,
  },
});

describe('interac', () => {
  it('is a signed MoonPay link with Interac e-Transfer preselected, in CAD', async () => {
    const adapter = await interac.create(live, {
      mode: 'live',
      webhookUrl: 'https://pay.example.org/webhooks/interac',
      http: undefined as never,
      tokens: undefined as never,
      now: Date.now,
    });
    const { url } = redirectCheckout(
      await adapter.createCheckout(
        {
          paymentId: '6f1c2b9e-4d3a-4e8b-9a7c-2f5d8e1b3c40',
          walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
          amount: '150.00',
          currency: 'CAD',
          email: 'a@b.ca',
          returnUrl: 'https://pay.example.org/payment/x',
          customerIp: '203.0.113.7',
        },
        { idempotencyKey: 'x', signal: new AbortController().signal },
      ),
    );
    const link = new URL(url);
    expect(link.searchParams.get('paymentMethod')).toBe('interac');
    expect(link.searchParams.get('baseCurrencyCode')).toBe('cad');
    const [unsigned, signature] = link.search.split('&signature=') as [string, string];
    expect(decodeURIComponent(signature)).toBe(
      execFileSync('openssl', ['dgst', '-sha256', '-hmac', live.SECRET_KEY, '-binary'], { input: unsigned }).toString('base64'),
    );
    expect(interac.descriptor).toMatchObject({ currency: 'CAD', minimum: '100', minimumCurrency: 'CAD', account: 'moonpay' });
  });

  it('names its own MODE setting when it contradicts the keys', () => {
    expect(() => interac.modeOf(test, 'live')).toThrow(/PROVIDER_INTERAC_MODE=live contradicts the test keys/);
  });
});
