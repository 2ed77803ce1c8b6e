import { execFileSync } from 'node:child_process';
import { describeAdapterContract, sampleOrder } from '../../../test/support/adapter-contract';
import { MOONPAY_KEYS, MOONPAY_LINK, MOONPAY_SIGNATURE, signedByMoonpay } from '../../../test/support/moonpay-account';
import { hmacSha256 } from '../../support/signing';
import { moonpay, signedMoonpayUrl } from './moonpay-adapter';
import { MOONPAY_FAILURE_KIND, moonpayWebhookEvent } from './moonpay-webhook';

const { live, test } = MOONPAY_KEYS;

describeAdapterContract({
  module: moonpay,
  settings: { live, test },
  readCheckout: MOONPAY_LINK,
  signWebhook: ({ paymentId, walletAddress, status }, nowMs) =>
    signedByMoonpay(
      {
        type: status === 'paid' ? 'transaction_updated' : 'transaction_failed',
        data: {
          id: 'a1b2c3',
          status: status === 'paid' ? 'completed' : 'failed',
          externalTransactionId: paymentId,
          walletAddress,
          currencyId: 'usdc_polygon',
        },
      },
      nowMs,
    ),
  webhookSignature: MOONPAY_SIGNATURE,
  hostile: {
    payload: ({ paymentId, walletAddress }) => ({
      type: 'transaction_failed',
      data: { id: 'a1b2c3', status: 'failed', externalTransactionId: paymentId, walletAddress, failureReason: 'Card declined' },
    }),
    sign: signedByMoonpay,
  },
});

describe('moonpay URL signature', () => {
  it("matches the value recomputed from MoonPay's published example inputs (with the leading ?)", () => {
    const search = '?apiKey=pk_test_key&currencyCode=eth&walletAddress=0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae';
    expect(hmacSha256('sk_test_key', search, 'base64')).toBe('o1eO2arzL16TstEolGakHHFa33Mb61RCTfqToRWg7PA=');
    // Without the "?" it is another value: the trap the docs warn of.
    expect(hmacSha256('sk_test_key', search.slice(1), 'base64')).toBe('ZiSugwn8JQgcn4lyDy7R+2R1rc92vX7bfbSheMhWY4o=');
  });

  it('signs the whole encoded query with its "?", as openssl computes it, and puts the signature last', () => {
    const url = new URL(signedMoonpayUrl('https://buy.moonpay.com', live.API_KEY, live.SECRET_KEY, sampleOrder('EUR')));
    const [unsigned, signature] = url.search.split('&signature=') as [string, string];
    const byOpenssl = execFileSync('openssl', ['dgst', '-sha256', '-hmac', live.SECRET_KEY, '-binary'], { input: unsigned });
    expect(decodeURIComponent(signature)).toBe(byOpenssl.toString('base64'));
    // The e-mail's "+" and "@" and the return URL's "/" are encoded before signing.
    expect(unsigned).toContain('email=jane%2Btest%40shop.io');
    expect(unsigned).toContain('redirectURL=https%3A%2F%2Fpay.example.org%2Fpayment%2F');
    expect(url.searchParams.get('currencyCode')).toBe('usdc_polygon');
  });

  it('fees on top: quoteCurrencyAmount (the USDC to buy) instead of baseCurrencyAmount, signed with the rest', () => {
    const url = new URL(
      signedMoonpayUrl('https://buy.moonpay.com', live.API_KEY, live.SECRET_KEY, { ...sampleOrder('EUR'), usdc: 151_505_051n }),
    );
    expect(url.searchParams.get('quoteCurrencyAmount')).toBe('151.505051');
    expect(url.searchParams.has('baseCurrencyAmount')).toBe(false);
    expect([url.searchParams.get('baseCurrencyCode'), url.searchParams.get('lockAmount')]).toEqual(['eur', 'true']);
    const [unsigned, signature] = url.search.split('&signature=') as [string, string];
    expect(decodeURIComponent(signature)).toBe(hmacSha256(live.SECRET_KEY, unsigned, 'base64'));
  });

  it('refuses keys that mix live and test, and a MODE that contradicts them', () => {
    expect(() => moonpay.modeOf({ ...live, SECRET_KEY: test.SECRET_KEY }, undefined)).toThrow(/mix live and test/);
    expect(() => moonpay.modeOf(test, 'live')).toThrow(/contradicts/);
    expect(moonpay.modeOf(test, undefined)).toBe('test');
  });
});

// The transaction_failed example of https://dev.moonpay.com/api-reference/widget/webhooks/transaction-failed,
// with each failureReason the transaction object documents.
describe('moonpay decline kinds', () => {
  const failed = (data: Record<string, unknown>) => {
    const read = moonpayWebhookEvent(
      Buffer.from(
        JSON.stringify({
          type: 'transaction_failed',
          data: {
            id: 'defb7c52-7bd3-422b-9052-374df50cc51a',
            status: 'failed',
            failureReason: null,
            walletAddress: '0xc216eD2D6c295579718dbd4a797845CdA70B3C36',
            externalTransactionId: '6f1a0b1e-7c4d-4b8e-9c1a-2b3c4d5e6f70',
            ...data,
          },
        }),
      ),
    );
    return read.kind === 'event' ? read.event.declineKind : read.why;
  };

  it.each([
    ['card_not_supported', 'card_refused'],
    ['payment_authorization_declined', 'card_refused'],
    ['rejected_card', 'card_refused'],
    ['daily_purchase_limit_exceeded', 'over_limit'],
    ['rejected_kyc', 'identity_failed'],
    ['timeout_kyc_verification', 'identity_failed'],
    ['timeout_card_verification', 'identity_failed'],
    ['timeout_3d_secure', 'abandoned'],
    ['timeout_bank_transfer', 'abandoned'],
    ['cancelled', 'other'],
    ['rejected_other', 'other'],
    ['error', 'other'],
    ['a_code_moonpay_adds_later', 'other'],
  ])('failureReason %s is %s', (failureReason, kind) => {
    expect(failed({ failureReason })).toBe(kind);
  });

  it('maps every documented code, and reads the failed stage where the top level has none', () => {
    expect(Object.keys(MOONPAY_FAILURE_KIND)).toHaveLength(9);
    const stages = [
      { stage: 'stage_one_ordering', status: 'success', failureReason: null },
      { stage: 'stage_two_verification', status: 'failed', failureReason: 'rejected_kyc' },
      { stage: 'stage_three_processing', status: 'not_started', failureReason: null },
    ];
    expect(failed({ stages })).toBe('identity_failed');
  });

  it('a failure without a reason is other; a completed transaction carries no kind', () => {
    expect(failed({})).toBe('other');
    expect(failed({ status: 'completed' })).toBeUndefined();
    expect(failed({ status: 'pending', failureReason: 'rejected_card' })).toBeUndefined();
  });
});
