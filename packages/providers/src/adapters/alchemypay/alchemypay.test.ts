import { execFileSync } from 'node:child_process';
import {
  CONTRACT_NOW_MS,
  contractContext,
  describeAdapterContract,
  sampleOrder,
  signatureInBodyField,
} from '../../../test/support/adapter-contract';
import { ProviderWebhookError, type ProviderAdapter } from '../../provider-contract';
import { hmacSha256 } from '../../support/signing';
import { alchemypay, alchemyPayPageSignContent } from './alchemypay-adapter';
import { alchemyPayWebhookSignContent } from './alchemypay-webhook';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { alchemyPayWebhookEvent } from './alchemypay-webhook';

const live = { APP_ID: 'f83Is2y7L425rxl8', APP_SECRET: 'app-secret-live-1234' };
const test = { APP_ID: 'ahzxh0klegv1fzol', APP_SECRET: 'app-secret-test-1234' };
const CALLBACK_PATH = '/webhooks/alchemypay';

/** Base64 HMAC-SHA256 as openssl computes it, independent of the adapter. */
function opensslHmacBase64(key: string, message: string): string {
  return execFileSync('openssl', ['dgst', '-sha256', '-hmac', key, '-binary'], { input: message }).toString('base64');
}

/**
 * A webhook as the webhook-signature page describes it, written here a second time: fields
 * without empties, signature and newSignature, sorted by name, as compact JSON after
 * timestamp + "POST" + path; signed by openssl.
 */
function alchemyPayWebhook(fields: Record<string, string>, nowMs: number, secret = live.APP_SECRET) {
  const timestamp = String(nowMs);
  const signed = Object.entries(fields)
    .filter(([name, value]) => value !== '' && name !== 'signature')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const content = `${timestamp}POST${CALLBACK_PATH}${JSON.stringify(Object.fromEntries(signed))}`;
  const body = { ...fields, newSignature: opensslHmacBase64(secret, content) };
  return { rawBody: Buffer.from(JSON.stringify(body)), headers: { timestamp } };
}

function onRampFields(status: string, overrides: Record<string, string> = {}): Record<string, string> {
  const order = sampleOrder('EUR');
  return {
    appId: live.APP_ID,
    orderNo: '1432224738102983680',
    merchantOrderNo: order.paymentId,
    crypto: 'USDC',
    network: 'MATIC',
    address: order.walletAddress,
    fiat: 'EUR',
    amount: '149.99000000',
    payType: 'CREDIT_CARD',
    payTime: '2026-11-25 11:58:02',
    txHash: '',
    message: '',
    status,
    signature: '8740b5ae5fae0559a16bf09e755d6c3f1e2a9b07',
    ...overrides,
  };
}

describeAdapterContract({
  module: alchemypay,
  settings: { live, test },
  readCheckout: { wallet: 'address', amount: 'fiatAmount', currency: 'fiat', reference: 'merchantOrderNo' },
  signWebhook: ({ paymentId, walletAddress, status }, nowMs) =>
    alchemyPayWebhook(
      status === 'paid'
        ? onRampFields('FINISHED', { merchantOrderNo: paymentId, address: walletAddress, txHash: '0x6f3cb23402837e3dbe3e52aff2f995ff' })
        : onRampFields('PAY_FAIL', { merchantOrderNo: paymentId, address: walletAddress, message: 'Declined by 3-D Secure' }),
      nowMs,
    ),
  webhookSignature: signatureInBodyField('newSignature', 'base64'),
  hostile: {
    payload: ({ paymentId, walletAddress }) =>
      onRampFields('PAY_FAIL', { merchantOrderNo: paymentId, address: walletAddress, message: 'Declined by 3-D Secure' }),
    // The signature is a field of the body: a body that is not an object has nowhere to carry one.
    sign: (payload, nowMs) =>
      payload !== null && typeof payload === 'object' && !Array.isArray(payload)
        ? alchemyPayWebhook(payload as Record<string, string>, nowMs)
        : { rawBody: Buffer.from(JSON.stringify(payload)), headers: { timestamp: String(nowMs) } },
  },
});

describe('alchemypay page URL signature', () => {
  it("lays out the signed string as the docs' on-ramp example does", () => {
    const params = {
      appId: 'f83Is2y7L425rxl8',
      crypto: 'USDT',
      network: 'ETH',
      showTable: 'buy',
      fiat: 'USD',
      fiatAmount: '30',
      timestamp: '1538054050234',
      email: '',
    };
    const content = alchemyPayPageSignContent('1538054050234', params);
    expect(content).toBe(
      '1538054050234GET/index/rampPageBuy?appId=f83Is2y7L425rxl8&crypto=USDT&fiat=USD&fiatAmount=30&network=ETH&showTable=buy&timestamp=1538054050234',
    );
    // The docs' secret is masked (*****): this vector uses our own key, computed with openssl.
    expect(hmacSha256('vector-secret-not-alchemys', content, 'base64')).toBe('JNqUC6qjL7zPa68MfcwNjAH7hHuautNG88P0UdX5n00=');
  });

  it('signs every parameter sent, unencoded and sorted, as openssl computes it, and sends sign URL-encoded', async () => {
    const order = sampleOrder('EUR');
    const adapter = await alchemypay.create(live, contractContext('alchemypay', 'live'));
    const created = await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: new AbortController().signal });
    const url = new URL(redirectCheckout(created).url);
    expect(url.origin).toBe('https://ramp.alchemypay.org');
    const sent = Object.fromEntries([...url.searchParams].filter(([name]) => name !== 'sign'));
    expect(sent).toEqual({
      appId: live.APP_ID,
      timestamp: String(CONTRACT_NOW_MS),
      merchantOrderNo: order.paymentId,
      crypto: 'USDC',
      network: 'MATIC',
      fiat: 'EUR',
      fiatAmount: order.amount,
      address: order.walletAddress,
      email: order.email,
      showTable: 'buy',
      redirectUrl: order.returnUrl,
      callbackUrl: `https://pay.example.org${CALLBACK_PATH}`,
    });
    const query = Object.keys(sent)
      .sort()
      .map((name) => `${name}=${sent[name]}`)
      .join('&');
    expect(url.searchParams.get('sign')).toBe(opensslHmacBase64(live.APP_SECRET, `${CONTRACT_NOW_MS}GET/index/rampPageBuy?${query}`));
    // In the link the values and the sign are URL-encoded; in the signed string they are not.
    expect(redirectCheckout(created).url).toContain('email=jane%2Btest%40shop.io');
    expect(redirectCheckout(created).url).toMatch(/&sign=[A-Za-z0-9%]+$/);
  });

  it('uses ramptest in test mode, from PROVIDER_ALCHEMYPAY_MODE', async () => {
    const order = sampleOrder('USD');
    const adapter = await alchemypay.create(test, contractContext('alchemypay', 'test'));
    const url = new URL(
      redirectCheckout(await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: new AbortController().signal })).url,
    );
    expect(url.origin).toBe('https://ramptest.alchemypay.org');
    expect(alchemypay.modeOf(test, 'test')).toBe('test');
    expect(alchemypay.modeOf(live, undefined)).toBe('live');
  });
});

describe('alchemypay webhooks', () => {
  let adapter: ProviderAdapter;
  beforeAll(async () => {
    adapter = await alchemypay.create(live, contractContext('alchemypay', 'live'));
  });

  it("builds the signed string exactly as the webhook-signature page's worked example", () => {
    // The page's step 1 body (its masked values kept), header timestamp and callback path.
    const body = {
      amount: '15.00000000',
      orderNo: '***',
      address: '***',
      payTime: '2024-09-27 17:59:27',
      signature: 'f13fb8137f2c999c5932261de9bc8668b0a7b014',
      rawRampFee: '0.998500',
      merchantOrderNo: '***',
      crypto: 'USDT',
      network: 'TRX',
      rampFeeUnit: 'USD',
      cryptoPrice: '0.00000000',
      payType: 'CREDIT_CARD',
      rampFee: '0.99000000',
      cryptoQuantity: '12.93',
      appId: 'f83Is2y7L425rxl8',
      fiat: 'USD',
      newSignature: '+T2BJ1S2X+ffRXoF+q5c/aqgZSyjGXt7Oh073UXLti0=',
      email: '***@gmail.com',
      status: 'PAY_SUCCESS',
      rampFeeInUSD: '0.99',
    };
    const content = alchemyPayWebhookSignContent('1727431167633', '/alchemypay-on-ramp', body);
    expect(content).toBe(
      '1727431167633POST/alchemypay-on-ramp{"address":"***","amount":"15.00000000","appId":"f83Is2y7L425rxl8","crypto":"USDT","cryptoPrice":"0.00000000","cryptoQuantity":"12.93","email":"***@gmail.com","fiat":"USD","merchantOrderNo":"***","network":"TRX","orderNo":"***","payTime":"2024-09-27 17:59:27","payType":"CREDIT_CARD","rampFee":"0.99000000","rampFeeInUSD":"0.99","rampFeeUnit":"USD","rawRampFee":"0.998500","status":"PAY_SUCCESS"}',
    );
    // That string under our own key, computed with openssl (the docs' secret is not published).
    expect(hmacSha256('vector-secret-not-alchemys', content, 'base64')).toBe('7Bmka2V5anheNv5IQ9sA6nv1vu26/RI2IDdaW+wm3JQ=');
  });

  it('accepts a signed webhook whatever the field order and answers with the success envelope', async () => {
    const webhook = alchemyPayWebhook(onRampFields('PAY_SUCCESS'), CONTRACT_NOW_MS);
    const outcome = await adapter.verifyWebhook(webhook.rawBody, webhook.headers);
    expect(outcome).toMatchObject({
      kind: 'event',
      event: {
        status: 'charged',
        rawStatus: 'PAY_SUCCESS',
        providerReference: '1432224738102983680',
        match: { paymentId: sampleOrder('EUR').paymentId },
      },
      acknowledgement: { statusCode: 200 },
    });
    expect(JSON.parse(outcome.acknowledgement.body)).toEqual({ success: true, returnCode: '0000', returnMsg: 'SUCCESS', data: null });
  });

  it('refuses a webhook signed for another callback path, with another key, or timed more than 5 minutes away', async () => {
    const elsewhere = alchemyPayWebhook(onRampFields('FINISHED'), CONTRACT_NOW_MS);
    const otherPath = await alchemypay.create(
      live,
      contractContext('alchemypay', 'live', { webhookUrl: 'https://pay.example.org/hooks/other' }),
    );
    await expect(otherPath.verifyWebhook(elsewhere.rawBody, elsewhere.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    const otherKey = alchemyPayWebhook(onRampFields('FINISHED'), CONTRACT_NOW_MS, 'someone-elses-secret');
    await expect(adapter.verifyWebhook(otherKey.rawBody, otherKey.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    const late = alchemyPayWebhook(onRampFields('FINISHED'), CONTRACT_NOW_MS - 301_000);
    await expect(adapter.verifyWebhook(late.rawBody, late.headers)).rejects.toThrow(/from now/);
    const early = alchemyPayWebhook(onRampFields('FINISHED'), CONTRACT_NOW_MS + 301_000);
    await expect(adapter.verifyWebhook(early.rawBody, early.headers)).rejects.toThrow(/from now/);
    const inWindow = alchemyPayWebhook(onRampFields('FINISHED'), CONTRACT_NOW_MS - 299_000);
    await expect(adapter.verifyWebhook(inWindow.rawBody, inWindow.headers)).resolves.toMatchObject({ kind: 'event' });
  });

  it('refuses a webhook whose timestamp header was changed, or that has no newSignature', async () => {
    const webhook = alchemyPayWebhook(onRampFields('FINISHED'), CONTRACT_NOW_MS);
    await expect(adapter.verifyWebhook(webhook.rawBody, { timestamp: String(CONTRACT_NOW_MS + 1) })).rejects.toBeInstanceOf(
      ProviderWebhookError,
    );
    const unsigned = Buffer.from(JSON.stringify(onRampFields('FINISHED')));
    await expect(adapter.verifyWebhook(unsigned, webhook.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    await expect(adapter.verifyWebhook(Buffer.from('[1,2]'), webhook.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
  });

  it.each([
    ['PENDING', 'pending'],
    // The card was charged; the USDC is not sent until FINISHED.
    ['PAY_SUCCESS', 'charged'],
    ['TRANSFER', 'charged'],
    ['FINISHED', 'paid'],
    ['PAY_FAIL', 'declined'],
    ['CANCEL', 'failed'],
    ['RISK_CONTROL', 'failed'],
    ['REFUNDED', 'failed'],
    ['INVALID_ADDRESS', 'failed'],
  ] as const)('maps %s to %s', async (status, mapped) => {
    const webhook = alchemyPayWebhook(onRampFields(status), CONTRACT_NOW_MS);
    const outcome = await adapter.verifyWebhook(webhook.rawBody, webhook.headers);
    expect(outcome.kind === 'event' && outcome.event.status).toBe(mapped);
    // Only a refund may end a payment whose card was charged.
    expect(outcome.kind === 'event' && outcome.event.refunded === true).toBe(status === 'REFUNDED');
  });

  it("gives the card failure's message as the reason", async () => {
    const webhook = alchemyPayWebhook(onRampFields('PAY_FAIL', { message: 'Declined by 3-D Secure' }), CONTRACT_NOW_MS);
    const outcome = await adapter.verifyWebhook(webhook.rawBody, webhook.headers);
    expect(outcome.kind === 'event' && outcome.event.reason).toBe('Declined by 3-D Secure');
  });

  it('ignores an authentic off-ramp webhook (numeric status)', async () => {
    const webhook = alchemyPayWebhook(
      { appId: live.APP_ID, orderNo: '1432901579', merchantOrderNo: 'sell-1', crypto: 'USDT', network: 'TRX', status: '4' },
      CONTRACT_NOW_MS,
    );
    await expect(adapter.verifyWebhook(webhook.rawBody, webhook.headers)).resolves.toMatchObject({
      kind: 'ignored',
      acknowledgement: { statusCode: 200 },
    });
  });
});

// The on-ramp statuses of https://alchemypay.readme.io/docs/list-of-order-status: none names why beyond the message.
describe('alchemypay decline kinds', () => {
  const kind = (status: string) => {
    const read = alchemyPayWebhookEvent({ status, merchantOrderNo: 'pay-12', orderNo: '1234567890', message: 'Declined by 3-D Secure' });
    return read.kind === 'event' ? read.event.declineKind : read.why;
  };
  it.each([
    ['PAY_FAIL', 'other'],
    ['RISK_CONTROL', 'other'],
    ['CANCEL', 'other'],
    ['FINISHED', undefined],
    ['PAY_SUCCESS', undefined],
  ])('%s is %s', (status, expected) => {
    expect(kind(status)).toBe(expected);
  });
});
