import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { contractContext, describeAdapterContract, sampleOrder } from '../../../test/support/adapter-contract';
import { ProviderWebhookError, type ProviderAdapter } from '../../provider-contract';
import { mercuryo, mercuryoSignature } from './mercuryo-adapter';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { mercuryoWebhookEvent } from './mercuryo-webhook';

const live = { WIDGET_ID: '67710925-8b40-4767-846e-3b88db69f04d', SECRET_KEY: 'widget-secret-live-1234', SIGN_KEY: 'sign-key-live-5678' };
const test = { WIDGET_ID: '0b9c2f4e-1d3a-4c5b-8e7f-6a5b4c3d2e1f', SECRET_KEY: 'widget-secret-test-1234', SIGN_KEY: 'sign-key-test-5678' };

/** A callback as Mercuryo's callbacks page describes it: hex HMAC-SHA256 of the body with the Sign Key, by node:crypto. */
function mercuryoCallback(data: Record<string, unknown>, signKey = live.SIGN_KEY) {
  const rawBody = Buffer.from(JSON.stringify({ data }));
  return { rawBody, headers: { 'x-signature': createHmac('sha256', signKey).update(rawBody).digest('hex') } };
}

function callbackData(type: string, status: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: '0de85a1545a175145',
    type,
    status,
    currency: 'USDC',
    amount: '158.12',
    fiat_currency: 'EUR',
    fiat_amount: '149.99',
    payment_method: 'card',
    created_at: '2026-11-25 11:58:02',
    created_at_ts: 1795607882,
    merchant_transaction_id: sampleOrder('EUR').paymentId,
    ...overrides,
  };
}

describeAdapterContract({
  module: mercuryo,
  settings: { live, test },
  readCheckout: { wallet: 'address', amount: 'fiat_amount', currency: 'fiat_currency', reference: 'merchant_transaction_id' },
  signWebhook: ({ paymentId, walletAddress, status }) =>
    status === 'paid'
      ? mercuryoCallback(
          callbackData('withdraw', 'completed', { merchant_transaction_id: paymentId, tx: { id: '0xabc', address: walletAddress } }),
        )
      : mercuryoCallback(callbackData('buy', 'order_failed', { merchant_transaction_id: paymentId })),
  // Mercuryo signs no timestamp: there is no replay window to test.
  webhookHasTimestamp: false,
  webhookSignature: { header: 'x-signature', encoding: 'hex' },
  hostile: {
    payload: ({ paymentId, walletAddress }) =>
      callbackData('withdraw', 'completed', { merchant_transaction_id: paymentId, tx: { id: '0xabc', address: walletAddress } }),
    sign: (payload) => mercuryoCallback(payload as Record<string, unknown>),
  },
});

describe('mercuryo URL signature v2', () => {
  it("reproduces the docs' published example, whose full value was computed with sha512sum", () => {
    const signature = mercuryoSignature('0x742d35Cc6634C0532925a3b844Bc454e4438f44e', 'your_secret_key_123', '192.168.1.1', 'tx_123456');
    // widget.docs.mercuryo.io/guide/integration/security shows the prefix "v2:83a6473f7b0aade8cd794c38f435d8db...".
    expect(signature.startsWith('v2:83a6473f7b0aade8cd794c38f435d8db')).toBe(true);
    expect(signature).toBe(
      'v2:83a6473f7b0aade8cd794c38f435d8db621149f206e8488ec99ab12edefc5d55d605384dc0b3cc947a93fd3bd4d0d210c6972fcf39fbb4dce893729ddf8ea825',
    );
  });

  it('signs the wallet, the secret, the customer IP and our payment id, as sha512sum computes it, and carries the signed values in the URL', async () => {
    const order = sampleOrder('EUR');
    const adapter = await mercuryo.create(live, contractContext('mercuryo', 'live'));
    const url = new URL(
      redirectCheckout(await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: new AbortController().signal })).url,
    );
    const bySha512sum = execFileSync('sha512sum', [], {
      input: `${order.walletAddress}${live.SECRET_KEY}${order.customerIp}${order.paymentId}`,
    })
      .toString()
      .split(' ')[0];
    expect(url.searchParams.get('signature')).toBe(`v2:${bySha512sum}`);
    expect(url.searchParams.get('address')).toBe(order.walletAddress);
    expect(url.searchParams.get('merchant_transaction_id')).toBe(order.paymentId);
    expect(url.origin).toBe('https://exchange.mercuryo.io');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      widget_id: live.WIDGET_ID,
      type: 'buy',
      currency: 'USDC',
      fix_currency: 'true',
      fix_network: 'POLYGON',
      fix_fiat_amount: 'true',
      fix_fiat_currency: 'true',
      email: order.email,
      redirect_url: order.returnUrl,
    });
  });

  it('uses the sandbox widget host in test mode', async () => {
    const order = sampleOrder('USD');
    const adapter = await mercuryo.create(test, contractContext('mercuryo', 'test'));
    const url = new URL(
      redirectCheckout(await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: new AbortController().signal })).url,
    );
    expect(url.origin).toBe('https://sandbox-exchange.mrcr.io');
    expect(mercuryo.modeOf(test, 'test')).toBe('test');
    expect(mercuryo.modeOf(live, undefined)).toBe('live');
  });
});

describe('mercuryo callbacks', () => {
  let adapter: ProviderAdapter;
  beforeAll(async () => {
    adapter = await mercuryo.create(live, contractContext('mercuryo', 'live'));
  });

  it('accepts a signed callback, names the payment and answers HTTP 200', async () => {
    const callback = mercuryoCallback(callbackData('buy', 'paid'));
    const outcome = await adapter.verifyWebhook(callback.rawBody, callback.headers);
    expect(outcome).toMatchObject({
      kind: 'event',
      event: {
        status: 'charged',
        rawStatus: 'buy:paid',
        match: { paymentId: sampleOrder('EUR').paymentId, providerReference: '0de85a1545a175145' },
      },
      acknowledgement: { statusCode: 200 },
    });
  });

  it('verifies the raw body only: the same body reformatted with whitespace, or signed with whitespace removed, is refused', async () => {
    const data = callbackData('buy', 'paid');
    const pretty = Buffer.from(JSON.stringify({ data }, null, 2));
    const signedCompact = createHmac('sha256', live.SIGN_KEY).update(JSON.stringify({ data })).digest('hex');
    await expect(adapter.verifyWebhook(pretty, { 'x-signature': signedCompact })).rejects.toBeInstanceOf(ProviderWebhookError);
    const strippedSignature = createHmac('sha256', live.SIGN_KEY).update(JSON.stringify({ data }).replace(/\s/g, '')).digest('hex');
    const raw = Buffer.from(JSON.stringify({ data }));
    await expect(adapter.verifyWebhook(raw, { 'x-signature': strippedSignature })).rejects.toBeInstanceOf(ProviderWebhookError);
  });

  it('refuses a callback signed with another key, or with the signature in another form', async () => {
    const callback = mercuryoCallback(callbackData('buy', 'paid'), 'another-sign-key');
    await expect(adapter.verifyWebhook(callback.rawBody, callback.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    const genuine = mercuryoCallback(callbackData('buy', 'paid'));
    await expect(
      adapter.verifyWebhook(genuine.rawBody, { 'x-signature': genuine.headers['x-signature'].toUpperCase() }),
    ).rejects.toBeInstanceOf(ProviderWebhookError);
    await expect(
      adapter.verifyWebhook(genuine.rawBody, { 'x-signature': [genuine.headers['x-signature'], genuine.headers['x-signature']] }),
    ).rejects.toBeInstanceOf(ProviderWebhookError);
  });

  it.each([
    ['buy', 'new', 'pending'],
    ['buy', 'pending', 'pending'],
    ['buy', 'order_scheduled', 'pending'],
    ['buy', 'order_verified_not_complete', 'pending'],
    // buy:paid is the card payment; the USDC leaves with the withdraw operation.
    ['buy', 'paid', 'charged'],
    ['buy', 'order_failed', 'declined'],
    ['buy', 'descriptor_failed', 'declined'],
    ['buy', 'failed_exchange', 'failed'],
    ['buy', 'cancelled', 'failed'],
    ['withdraw', 'new', 'charged'],
    ['withdraw', 'pending', 'charged'],
    ['withdraw', 'order_scheduled', 'charged'],
    ['withdraw', 'completed', 'paid'],
    ['withdraw', 'failed', 'failed'],
  ] as const)('maps %s %s to %s', async (type, status, mapped) => {
    const callback = mercuryoCallback(callbackData(type, status));
    const outcome = await adapter.verifyWebhook(callback.rawBody, callback.headers);
    expect(outcome.kind === 'event' && outcome.event.status).toBe(mapped);
  });

  it('names the wallet of a withdraw', async () => {
    const callback = mercuryoCallback(
      callbackData('withdraw', 'completed', { tx: { id: '0xabc', address: sampleOrder('EUR').walletAddress } }),
    );
    const outcome = await adapter.verifyWebhook(callback.rawBody, callback.headers);
    expect(outcome.kind === 'event' && outcome.event.match.walletAddress).toBe(sampleOrder('EUR').walletAddress);
  });

  it('ignores authentic callbacks that are not about a buy order: a sell, a deposit, a Spend Card event, an unknown status', async () => {
    for (const data of [callbackData('sell', 'succeeded'), callbackData('deposit', 'completed'), callbackData('buy', 'something_new')]) {
      const callback = mercuryoCallback(data);
      await expect(adapter.verifyWebhook(callback.rawBody, callback.headers)).resolves.toMatchObject({
        kind: 'ignored',
        acknowledgement: { statusCode: 200 },
      });
    }
    const spendCard = Buffer.from(JSON.stringify({ event_id: '80b5ab73', event_name: 'card_status', status: 'active' }));
    const signature = createHmac('sha256', live.SIGN_KEY).update(spendCard).digest('hex');
    await expect(adapter.verifyWebhook(spendCard, { 'x-signature': signature })).resolves.toMatchObject({ kind: 'ignored' });
  });

  it('refuses a signed body that is not JSON', async () => {
    const rawBody = Buffer.from('not json');
    const signature = createHmac('sha256', live.SIGN_KEY).update(rawBody).digest('hex');
    await expect(adapter.verifyWebhook(rawBody, { 'x-signature': signature })).rejects.toBeInstanceOf(ProviderWebhookError);
  });
});

// Callbacks of https://widget.docs.mercuryo.io/guide/monitoring/callbacks, statuses of /guide/monitoring/transactions.
describe('mercuryo decline kinds', () => {
  const kind = (type: string, status: string) => {
    const read = mercuryoWebhookEvent(
      Buffer.from(
        JSON.stringify({
          data: { id: '0123abcd', type, status, merchant_transaction_id: 'pay-8', tx: { address: `0x${'4'.repeat(40)}` } },
        }),
      ),
    );
    return read.kind === 'event' ? read.event.declineKind : read.why;
  };
  it('declined by the issuer or the card check is card_refused; other failures other; a charge or a completed withdraw none', () => {
    expect(kind('buy', 'order_failed')).toBe('card_refused');
    expect(kind('buy', 'descriptor_failed')).toBe('card_refused');
    expect(kind('buy', 'failed_exchange')).toBe('other');
    expect(kind('buy', 'cancelled')).toBe('other');
    expect(kind('withdraw', 'failed')).toBe('other');
    expect(kind('buy', 'paid')).toBeUndefined();
    expect(kind('withdraw', 'completed')).toBeUndefined();
  });
});
