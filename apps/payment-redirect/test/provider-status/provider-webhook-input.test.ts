import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { PaymentRedirectConfig } from '../../src/config';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';
import { moonpayPayment } from '../support/sandbox';
import { madeUpKey } from '../../../../packages/providers/test/support/made-up-key';
import { NO_QUOTE_API } from '../../../../packages/providers/test/support/no-quote-api';

// Issue 22: 2 of ~10,000 MoonPay webhooks, correctly signed over hostile JSON, answered 500 (a NUL
// in a string reached PostgreSQL, which refuses 0x00 in text) and MoonPay was told to retry.
// Whatever a signed body holds, the answer is MoonPay's acknowledgement or a 4xx, never a 5xx.

const MOONPAY = {
  API_KEY: madeUpKey('pk', 'live', '123456789abcdefghijklmnopqrstuv'),
  SECRET_KEY: madeUpKey('sk', 'live', 'abcdefgh1234567890abcdefghijklm'),
  WEBHOOK_KEY: madeUpKey('wk', 'live', 'zyxwvuts9876543210zyxwvutsrqpon'),
};
const fixture = paymentRedirectFixture('provider_webhook_input', {
  PROVIDER_MOONPAY_API_KEY: MOONPAY.API_KEY,
  PROVIDER_MOONPAY_SECRET_KEY: MOONPAY.SECRET_KEY,
  PROVIDER_MOONPAY_WEBHOOK_KEY: MOONPAY.WEBHOOK_KEY,
  PROVIDER_MOONPAY_API_URL: NO_QUOTE_API,
});
let app: FastifyInstance;
let config: PaymentRedirectConfig;

beforeAll(async () => {
  config = fixture.config();
  app = await fixture.build(config);
});

let walletIndex = 0;
async function newMoonpayPayment(): Promise<{ paymentId: string; temporary: string }> {
  walletIndex += 1;
  return moonpayPayment(fixture, app, config, walletIndex);
}

/** A body signed as MoonPay signs it (Moonpay-Signature-V2), whatever it holds. */
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

const stored = async (paymentId: string) =>
  (
    await fixture.db.pool.query(
      'SELECT provider_status, provider_raw_status, provider_reference, provider_reason FROM payments WHERE id = $1',
      [paymentId],
    )
  ).rows[0];

describe('a correctly signed MoonPay webhook with hostile strings', () => {
  it("a NUL in the failure reason and in MoonPay's id: acknowledged and recorded without them, not a 500", async () => {
    const { paymentId, temporary } = await newMoonpayPayment();
    const response = await signedMoonpay({
      type: 'transaction_failed',
      data: {
        id: 'mp_\u0000evil',
        status: 'failed',
        externalTransactionId: paymentId,
        walletAddress: temporary,
        failureReason: 'Card\u0000 declined\u0007 by\u001b[31m the bank',
      },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-webhook-outcome']).toBe('updated');
    // An id with a control character names nothing and is not kept; the reason keeps its words.
    expect(await stored(paymentId)).toEqual({
      provider_status: 'failed',
      provider_raw_status: 'failed',
      provider_reference: null,
      provider_reason: 'Card declined by [31m the bank',
    });
  });

  it("a NUL in our payment id and MoonPay's id only: it names no payment, acknowledged as unknown", async () => {
    const { paymentId } = await newMoonpayPayment();
    const response = await signedMoonpay({
      type: 'transaction_updated',
      data: { id: '\u0000', status: 'completed', externalTransactionId: `${paymentId}\u0000` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-webhook-outcome']).toBe('unknown_payment');
    expect((await stored(paymentId)).provider_status).toBeNull();
  });

  it('a 7 kB id and reason (the most a 16 kB body holds): cut to their columns, not a 500', async () => {
    const { paymentId } = await newMoonpayPayment();
    const response = await signedMoonpay({
      type: 'transaction_failed',
      data: { id: 'r'.repeat(7_000), status: 'failed', externalTransactionId: paymentId, failureReason: `w\u0000${'w'.repeat(7_000)}` },
    });
    expect(response.statusCode).toBe(200);
    const row = await stored(paymentId);
    expect(row.provider_reference).toBe('r'.repeat(200));
    expect(row.provider_reason).toBe(`w ${'w'.repeat(198)}`);
  });

  it('a body over the 16 kB limit: 413, signed or not', async () => {
    const { paymentId } = await newMoonpayPayment();
    const response = await signedMoonpay({
      type: 'transaction_failed',
      data: { status: 'failed', externalTransactionId: paymentId, failureReason: 'w'.repeat(200_000) },
    });
    expect(response.statusCode).toBe(413);
  });

  it.each([
    ['null data', { type: 'transaction_updated', data: null }],
    ['a number for the status', { type: 'transaction_updated', data: { status: 7 } }],
    ['objects for the ids', { type: 'transaction_updated', data: { status: 'completed', id: {}, externalTransactionId: [1] } }],
    ['a null body', null],
    ['an array body', []],
  ])('%s: a 2xx acknowledgement or a 4xx, never a 5xx', async (_what, body) => {
    const response = await signedMoonpay(body);
    expect(response.statusCode).toBeLessThan(500);
  });
});
