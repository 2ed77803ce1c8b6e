import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { contractContext, CONTRACT_NOW_MS, describeAdapterContract, sampleOrder } from '../../../test/support/adapter-contract';
import { ProviderWebhookError } from '../../provider-contract';
import { revolut } from './revolut-adapter';
import { REVOLUT_EVENT_STATUS, revolutWebhookEvent } from './revolut-webhook';
import { redirectCheckout } from '../../../test/support/checkout-target';

const live = { PARTNER_ID: 'fb48770a-51b0-402e-8d25-33474f474aa2', WEBHOOK_SECRET: 'wsk_h1ETWMz2g1bB7gCONjNp84t2KSSIt7rs' };
const test = { PARTNER_ID: 'a01798bc-7f0b-14ed-a12b-0e3fac1209ad', WEBHOOK_SECRET: 'wsk_8fT55z3C5hCr41l6B0b057D85s2043x4' };

/** A webhook as Revolut's verify-the-payload-signature page describes it, signed with node:crypto directly. */
function revolutWebhook(body: unknown, secret: string, nowMs: number) {
  const rawBody = Buffer.from(JSON.stringify(body));
  const signature = createHmac('sha256', secret)
    .update(`v1.${nowMs}.${rawBody.toString('utf8')}`)
    .digest('hex');
  return { rawBody, headers: { 'revolut-request-timestamp': String(nowMs), 'revolut-signature': `v1=${signature}` } };
}

describeAdapterContract({
  module: revolut,
  settings: { live, test },
  // As the Initiate-a-transaction guide names them; amount is in minor units there.
  readCheckout: (url) => ({
    wallet: url.searchParams.get('walletAddress') ?? '',
    amount: String(Number(url.searchParams.get('amount')) / 100),
    currency: url.searchParams.get('fiatCurrency') ?? '',
    reference: url.searchParams.get('externalOrderId') ?? '',
  }),
  signWebhook: ({ paymentId, walletAddress, status }, nowMs) =>
    revolutWebhook(
      { order_id: paymentId, wallet: walletAddress, event: status === 'paid' ? 'ORDER_COMPLETED' : 'ORDER_FAILED' },
      live.WEBHOOK_SECRET,
      nowMs,
    ),
  webhookSignature: { header: 'revolut-signature', encoding: 'hex', part: /(?<=^v1=).*$/ },
  hostile: {
    payload: ({ paymentId, walletAddress }) => ({ order_id: paymentId, wallet: walletAddress, event: 'ORDER_FAILED' }),
    sign: (payload, nowMs) => revolutWebhook(payload, live.WEBHOOK_SECRET, nowMs),
  },
});

const open = { signal: new AbortController().signal };

describe('revolut redirect URL', () => {
  it('carries the documented parameters, amount in minor units, everything locked, on the test host in test mode', async () => {
    const adapter = await revolut.create(test, contractContext('revolut', 'test'));
    const order = sampleOrder('GBP');
    const url = new URL(redirectCheckout(await adapter.createCheckout(order, { idempotencyKey: order.paymentId, ...open })).url);
    expect(url.origin).toBe('https://ramp.revolut.codes');
    expect(url.pathname).toBe('/');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      partnerId: test.PARTNER_ID,
      fiatCurrency: 'GBP',
      amount: '14999',
      cryptoCurrency: 'USDC-POLYGON',
      walletAddress: order.walletAddress,
      externalOrderId: order.paymentId,
      disableFiatAmount: 'true',
      disableCryptoCurrency: 'true',
      disableWalletAddress: 'true',
      partnerRedirectUrl: order.returnUrl,
    });
    // The return URL is percent-encoded as in Revolut's own example.
    expect(url.search).toContain(`partnerRedirectUrl=https%3A%2F%2Fpay.example.org%2Fpayment%2F${order.paymentId}`);
  });

  it('writes whole and one-decimal amounts in minor units without floats', async () => {
    const adapter = await revolut.create(live, contractContext('revolut', 'live'));
    for (const [amount, minor] of [
      ['10.00', '1000'],
      ['0.10', '10'],
      ['1000000.00', '100000000'],
      ['12.5', '1250'],
    ] as const) {
      const order = { ...sampleOrder('EUR'), amount };
      const url = new URL(redirectCheckout(await adapter.createCheckout(order, { idempotencyKey: order.paymentId, ...open })).url);
      expect(url.searchParams.get('amount')).toBe(minor);
    }
  });
});

describe('revolut webhook signature', () => {
  const secret = 'wsk_r59a4HfWVAKycbCaNO1RvgCJec02gRd8';
  const timestamp = 1683650202360;
  /**
   * The inputs of Revolut's Python sample (Business API, "Verify the payload signature"); the docs
   * print no output, so the expected value below was computed with openssl (and is recomputed here).
   */
  const businessBody =
    '{"data":{"id":"645a7696-22f3-aa47-9c74-cbae0449cc46","new_state":"completed","old_state":"pending","request_id":"app_charges-9f5d5eb3-1e06-46c5-b1c0-3914763e0bcb"},"event":"TransactionStateChanged","timestamp":"2023-05-09T16:36:38.028960Z"}';
  const businessSignature = 'v1=bca326fb378d0da7f7c490ad584a8106bab9723d8d9cdd0d50b4c5b3be3837c0';
  /** The inputs of the Merchant API page's sample (same scheme, an ORDER_COMPLETED body with spaces kept). */
  const merchantBody =
    '{"event": "ORDER_COMPLETED","order_id": "9fc01989-3f61-4484-a5d9-ffe768531be9","merchant_order_ext_ref": "Test #3928"}';
  const merchantSignature = 'v1=281b1f1aebe9357b7b128fd6a3aae0fe202c901add4ce75e6d038e498871d7fd';
  const adapterAt = (nowMs: number) =>
    Promise.resolve(revolut.create({ ...live, WEBHOOK_SECRET: secret }, contractContext('revolut', 'live', { now: () => nowMs })));
  const headers = (signature: string, at = timestamp) => ({ 'revolut-request-timestamp': String(at), 'revolut-signature': signature });

  it('the vectors are what openssl computes over "v1." + timestamp + "." + body', () => {
    for (const [body, signature] of [
      [businessBody, businessSignature],
      [merchantBody, merchantSignature],
    ] as const) {
      const digest = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret, '-hex', '-r'], { input: `v1.${timestamp}.${body}` })
        .toString()
        .split(' ')[0];
      expect(`v1=${digest}`).toBe(signature);
    }
  });

  it("accepts Revolut's sample bodies byte for byte, and refuses them with a space more", async () => {
    const adapter = await adapterAt(timestamp);
    expect((await adapter.verifyWebhook(Buffer.from(businessBody), headers(businessSignature))).kind).toBe('ignored');
    const completed = await adapter.verifyWebhook(Buffer.from(merchantBody), headers(merchantSignature));
    expect(completed.kind === 'event' && completed.event).toEqual({
      match: { paymentId: '9fc01989-3f61-4484-a5d9-ffe768531be9' },
      status: 'paid',
      rawStatus: 'ORDER_COMPLETED',
    });
    await expect(adapter.verifyWebhook(Buffer.from(`${businessBody} `), headers(businessSignature))).rejects.toBeInstanceOf(
      ProviderWebhookError,
    );
    await expect(
      adapter.verifyWebhook(Buffer.from(JSON.stringify(JSON.parse(merchantBody))), headers(merchantSignature)),
    ).rejects.toBeInstanceOf(ProviderWebhookError);
  });

  it('accepts any one matching signature while a secret is rotated, and refuses when none matches', async () => {
    const adapter = await adapterAt(timestamp);
    const stale = 'v1=4fce70bda66b2e713be09fbb7ab1b31b0c8976ea4eeb01b244db7b99aa6482cb';
    expect((await adapter.verifyWebhook(Buffer.from(merchantBody), headers(`${stale},${merchantSignature}`))).kind).toBe('event');
    expect((await adapter.verifyWebhook(Buffer.from(merchantBody), headers(`${merchantSignature}, ${stale}`))).kind).toBe('event');
    await expect(adapter.verifyWebhook(Buffer.from(merchantBody), headers(`${stale},${stale}`))).rejects.toBeInstanceOf(
      ProviderWebhookError,
    );
    await expect(adapter.verifyWebhook(Buffer.from(merchantBody), headers(`${merchantSignature},v2=abc`))).rejects.toBeInstanceOf(
      ProviderWebhookError,
    );
  });

  it('refuses a timestamp more than 5 minutes away either way, and one that is not the signed one', async () => {
    const verifyAt = async (nowMs: number, sent: Record<string, string>) =>
      (await adapterAt(nowMs)).verifyWebhook(Buffer.from(merchantBody), sent);
    await expect(verifyAt(timestamp + 301_000, headers(merchantSignature))).rejects.toThrow(/300 s/);
    await expect(verifyAt(timestamp - 301_000, headers(merchantSignature))).rejects.toThrow(/300 s/);
    expect((await verifyAt(timestamp + 299_000, headers(merchantSignature))).kind).toBe('event');
    await expect(verifyAt(timestamp, headers(merchantSignature, timestamp + 1))).rejects.toThrow(/does not match/);
    await expect(verifyAt(timestamp, { 'revolut-signature': merchantSignature })).rejects.toThrow(/revolut-request-timestamp/);
  });
});

describe('revolut webhook events', () => {
  const read = (event: string) =>
    revolutWebhookEvent(
      Buffer.from(
        JSON.stringify({ order_id: '19218d6e-5f55-4a0d-b7c5-6e333881c1c9', wallet: '0x96e2B7Bf479f84e7A0a94f0620290B7D3E08f5EF', event }),
      ),
    );

  it.each([
    ['ORDER_CREATED', 'pending'],
    ['ORDER_PROCESSING', 'pending'],
    ['ORDER_COMPLETED', 'paid'],
    ['ORDER_FAILED', 'failed'],
  ])('%s maps to %s and names the order and wallet', (event, status) => {
    const outcome = read(event);
    expect(outcome.kind === 'event' && outcome.event).toEqual({
      match: { paymentId: '19218d6e-5f55-4a0d-b7c5-6e333881c1c9', walletAddress: '0x96e2B7Bf479f84e7A0a94f0620290B7D3E08f5EF' },
      status,
      rawStatus: event,
      // The webhook carries no failure reason: a failure is the decline kind other.
      ...(status === 'failed' ? { declineKind: 'other' } : {}),
    });
  });

  it('ignores sell orders and unknown events, and refuses a body that is not JSON', () => {
    expect(Object.keys(REVOLUT_EVENT_STATUS)).toHaveLength(4);
    for (const event of ['SELL_ORDER_COMPLETED', 'SELL_ORDER_FAILED', 'TransactionStateChanged']) expect(read(event).kind).toBe('ignored');
    expect(() => revolutWebhookEvent(Buffer.from('event=ORDER_COMPLETED'))).toThrow(ProviderWebhookError);
    expect(() => revolutWebhookEvent(Buffer.from('null'))).toThrow(ProviderWebhookError);
  });

  it('acknowledges with a 200 at the contract clock', async () => {
    const order = sampleOrder('EUR');
    const webhook = revolutWebhook(
      { order_id: order.paymentId, wallet: order.walletAddress, event: 'ORDER_PROCESSING' },
      live.WEBHOOK_SECRET,
      CONTRACT_NOW_MS,
    );
    const outcome = await (await revolut.create(live, contractContext('revolut', 'live'))).verifyWebhook(webhook.rawBody, webhook.headers);
    expect(outcome.acknowledgement.statusCode).toBe(200);
  });
});

describe('revolut decline kinds', () => {
  const kind = (event: string) => {
    const read = revolutWebhookEvent(Buffer.from(JSON.stringify({ order_id: 'pay-9', wallet: `0x${'5'.repeat(40)}`, event })));
    return read.kind === 'event' ? read.event.declineKind : read.why;
  };
  it('ORDER_FAILED carries no reason in the webhook: other; ORDER_COMPLETED none', () => {
    expect(kind('ORDER_FAILED')).toBe('other');
    expect(kind('ORDER_COMPLETED')).toBeUndefined();
  });
});
