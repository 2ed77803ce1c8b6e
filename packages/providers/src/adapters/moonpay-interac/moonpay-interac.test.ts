import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { describeAdapterContract } from '../../../test/support/adapter-contract';
import { interac } from './moonpay-interac-adapter';
import { redirectCheckout } from '../../../test/support/checkout-target';

const live = { API_KEY: 'pk_live_123456789abc', SECRET_KEY: 'sk_live_abcdefgh1234', WEBHOOK_KEY: 'wk_live_zyxwvuts9876' };
const test = { API_KEY: 'pk_test_123456789abc', SECRET_KEY: 'sk_test_abcdefgh1234', WEBHOOK_KEY: 'wk_test_zyxwvuts9876' };

describeAdapterContract({
  module: interac,
  settings: { live, test },
  readCheckout: {
    wallet: 'walletAddress',
    amount: 'baseCurrencyAmount',
    currency: 'baseCurrencyCode',
    reference: 'externalTransactionId',
  },
  // MoonPay's webhook, as its signature page describes it: the same account signs Interac orders.
  signWebhook: ({ paymentId, walletAddress, status }, nowMs) => {
    const rawBody = Buffer.from(
      JSON.stringify({
        type: 'transaction_updated',
        data: { id: 'i1', status: status === 'paid' ? 'completed' : 'failed', externalTransactionId: paymentId, walletAddress },
      }),
    );
    const t = Math.floor(nowMs / 1000);
    return {
      rawBody,
      headers: {
        'moonpay-signature-v2': `t=${t},s=${createHmac('sha256', live.WEBHOOK_KEY).update(`${t}.`).update(rawBody).digest('hex')}`,
      },
    };
  },
  webhookSignature: { header: 'moonpay-signature-v2', encoding: 'hex', part: /(?<=,s=).*$/ },
  hostile: {
    payload: ({ paymentId, walletAddress }) => ({
      type: 'transaction_updated',
      data: { id: 'i1', status: 'completed', externalTransactionId: paymentId, walletAddress },
    }),
    sign: (payload, nowMs) => {
      const rawBody = Buffer.from(JSON.stringify(payload));
      const t = Math.floor(nowMs / 1000);
      const s = createHmac('sha256', live.WEBHOOK_KEY).update(`${t}.`).update(rawBody).digest('hex');
      return { rawBody, headers: { 'moonpay-signature-v2': `t=${t},s=${s}` } };
    },
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
