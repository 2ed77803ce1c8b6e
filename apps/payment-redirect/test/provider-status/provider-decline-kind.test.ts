import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createMetricsServer } from '@gateway/http';
import type { PaymentRedirectConfig } from '../../src/config';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';
import { moonpayPayment } from '../support/sandbox';
import { madeUpKey } from '../../../../packages/providers/test/support/made-up-key';
import { NO_QUOTE_API } from '../../../../packages/providers/test/support/no-quote-api';

// Issue 32: the kind of a decline's reason, from a signed MoonPay webhook (its documented failureReason
// codes) to the payment's row, the receipt's facts and the per-provider count of declines by kind.

const MOONPAY = {
  API_KEY: madeUpKey('pk', 'live', '123456789abcdefghijklmnopqrstuv'),
  SECRET_KEY: madeUpKey('sk', 'live', 'abcdefgh1234567890abcdefghijklm'),
  WEBHOOK_KEY: madeUpKey('wk', 'live', 'zyxwvuts9876543210zyxwvutsrqpon'),
};
const fixture = paymentRedirectFixture('provider_decline_kind', {
  PROVIDER_MOONPAY_API_KEY: MOONPAY.API_KEY,
  PROVIDER_MOONPAY_SECRET_KEY: MOONPAY.SECRET_KEY,
  PROVIDER_MOONPAY_WEBHOOK_KEY: MOONPAY.WEBHOOK_KEY,
  PROVIDER_MOONPAY_API_URL: NO_QUOTE_API,
});
let app: FastifyInstance;
let config: PaymentRedirectConfig;
let metricsServer: FastifyInstance;

beforeAll(async () => {
  config = fixture.config();
  app = await fixture.build(config);
  metricsServer = await createMetricsServer(app);
});
afterAll(async () => {
  await metricsServer.close();
});

let walletIndex = 0;

function signedMoonpay(body: unknown) {
  const payload = JSON.stringify(body);
  const t = Math.floor(Date.now() / 1000);
  const s = createHmac('sha256', MOONPAY.WEBHOOK_KEY).update(`${t}.${payload}`).digest('hex');
  return app.inject({
    method: 'POST',
    url: '/webhooks/moonpay',
    payload,
    headers: { 'content-type': 'application/json', 'moonpay-signature-v2': `t=${t},s=${s}` },
  });
}

async function declines(kind: string): Promise<number> {
  const response = await metricsServer.inject({ url: '/metrics' });
  const line = response.body
    .split('\n')
    .find((sample) => sample.startsWith('payment_redirect_provider_declines_total{') && sample.includes(`kind="${kind}"`));
  expect(line === undefined || line.includes('provider="moonpay"')).toBe(true);
  return line ? Number(line.split(' ').at(-1)) : 0;
}

const storedKind = async (paymentId: string) =>
  (await fixture.db.pool.query('SELECT provider_decline_kind FROM payments WHERE id = $1', [paymentId])).rows[0].provider_decline_kind;

describe('the decline kind of a signed webhook', () => {
  it.each([
    ['daily_purchase_limit_exceeded', 'over_limit'],
    ['payment_authorization_declined', 'card_refused'],
    ['rejected_kyc', 'identity_failed'],
    ['timeout_3d_secure', 'abandoned'],
    [null, 'other'],
  ])('failureReason %s: stored as %s, counted, and a fact of the receipt', async (failureReason, kind) => {
    walletIndex += 1;
    const { paymentId, temporary } = await moonpayPayment(fixture, app, config, walletIndex);
    const before = await declines(kind);
    const response = await signedMoonpay({
      type: 'transaction_failed',
      data: { id: `mp-${walletIndex}`, status: 'failed', externalTransactionId: paymentId, walletAddress: temporary, failureReason },
    });
    expect([response.statusCode, response.headers['x-webhook-outcome']]).toEqual([200, 'updated']);
    expect(await storedKind(paymentId)).toBe(kind);
    expect(await declines(kind)).toBe(before + 1);
    const receipt = await app.receiptService.find(paymentId);
    expect(receipt.kind === 'receipt' && receipt.payment).toMatchObject({ providerStatus: 'failed', providerDeclineKind: kind });
    // The same report again changes nothing and is not counted twice.
    await signedMoonpay({
      type: 'transaction_failed',
      data: { id: `mp-${walletIndex}`, status: 'failed', externalTransactionId: paymentId, walletAddress: temporary, failureReason },
    });
    expect(await declines(kind)).toBe(before + 1);
  });

  it('a payment under way has no kind, and is not counted', async () => {
    walletIndex += 1;
    const { paymentId, temporary } = await moonpayPayment(fixture, app, config, walletIndex);
    const before = await declines('other');
    const response = await signedMoonpay({
      type: 'transaction_updated',
      data: { id: `mp-${walletIndex}`, status: 'pending', externalTransactionId: paymentId, walletAddress: temporary },
    });
    expect(response.headers['x-webhook-outcome']).toBe('updated');
    expect(await storedKind(paymentId)).toBeNull();
    expect(await declines('other')).toBe(before);
    const receipt = await app.receiptService.find(paymentId);
    expect(receipt.kind === 'receipt' && receipt.payment.providerDeclineKind).toBeNull();
  });
});
