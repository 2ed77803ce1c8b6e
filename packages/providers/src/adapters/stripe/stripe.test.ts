import { createHmac } from 'node:crypto';
import { CONTRACT_NOW_MS, sampleOrder, readingOf } from '../../../test/support/adapter-contract';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { describeSessionAdapter } from '../../../test/support/session-adapter-suite';
import { STRIPE_FAKE_SECRET, startStripeFake } from '../../../test/support/stripe-fake';
import { ProviderWebhookError, type ProviderAdapter } from '../../provider-contract';
import { stripe } from './stripe-adapter';
import { STRIPE_SESSION_STATUS, stripeWebhookEvent } from './stripe-webhook';

const WHSEC = 'whsec_5f3a1c9e7b2d4f6a8c0e1b3d5f7a9c2e';

/** Stripe-Signature as Stripe computes it, independently of the adapter: hex HMAC-SHA256 of `t.body` with the whsec_ secret. */
function signed(body: object, nowMs: number, secret = WHSEC, extraV1: string[] = []) {
  const rawBody = Buffer.from(JSON.stringify(body));
  const t = Math.floor(nowMs / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
  return { rawBody, headers: { 'stripe-signature': [`t=${t}`, ...extraV1.map((s) => `v1=${s}`), `v1=${v1}`].join(',') } };
}

const event = (paymentId: string, walletAddress: string, status: string, type = 'crypto.onramp_session_updated') => ({
  id: 'evt_1NqKj82eZvKYlo2C9Xb3tQ1a',
  object: 'event',
  type,
  created: Math.floor(CONTRACT_NOW_MS / 1000),
  data: {
    object: {
      id: 'cos_1NamBL2eZvKYlo2CP38sZVEW',
      object: 'crypto.onramp_session',
      metadata: { payment_id: paymentId },
      status,
      transaction_details: { wallet_address: walletAddress, destination_currency: 'usdc', destination_network: 'polygon' },
    },
  },
});

const kit = describeSessionAdapter({
  module: stripe,
  startFake: startStripeFake,
  settings: (fake, mode) => ({ SECRET_KEY: STRIPE_FAKE_SECRET[mode], WEBHOOK_SECRET: WHSEC, API_URL: fake.url }),
  modes: ['test', 'live'],
  contract: (fake) => ({
    // The hosted onramp URL carries an opaque hash: the session it stands for is what Stripe was asked for.
    readCheckout: (url) => {
      const { form } = fake().requests.at(-1)!;
      expect(url.origin).toBe('https://crypto.link.com');
      return readingOf({
        wallet: form.get('wallet_addresses[polygon]'),
        amount: form.get('source_amount'),
        currency: form.get('source_currency'),
        reference: form.get('metadata[payment_id]'),
      });
    },
    signWebhook: ({ paymentId, walletAddress, status }, nowMs) =>
      signed(event(paymentId, walletAddress, status === 'paid' ? 'fulfillment_complete' : 'rejected'), nowMs),
    webhookSignature: { header: 'stripe-signature', encoding: 'hex', part: /(?<=v1=)[0-9a-f]+$/ },
    hostile: {
      payload: ({ paymentId, walletAddress }) => event(paymentId, walletAddress, 'rejected'),
      sign: (payload, nowMs) => signed(payload as object, nowMs),
    },
  }),
  secret: () => STRIPE_FAKE_SECRET.test,
  // Stripe honours Idempotency-Key: a retried call answers the session the first one opened.
  sends: 'with-idempotency-key',
  malformedAmount: false,
  malformed: { 'no id': '{"redirect_url":"https://crypto.link.com?x=1"}', 'no redirect_url': '{"id":"cos_1","redirect_url":null}' },
  defaultHosts: { test: 'https://api.stripe.com/v1/crypto/onramp_sessions' },
});
const { build } = kit;
const open = (adapter: ProviderAdapter, idempotencyKey?: string) => kit.open(sampleOrder('USD'), { adapter, idempotencyKey });

describe('stripe onramp session against a local Stripe', () => {
  it('is a form-encoded POST with basic auth, the idempotency key and every documented field; answers cos_ and redirect_url', async () => {
    const created = redirectCheckout(await open(await build('live')));
    const [request] = kit.fake.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/crypto/onramp_sessions' });
    expect(request!.headers.authorization).toBe(`Basic ${Buffer.from(`${STRIPE_FAKE_SECRET.live}:`).toString('base64')}`);
    expect(request!.headers['idempotency-key']).toBe(sampleOrder('USD').paymentId);
    const o = sampleOrder('USD');
    expect([...request!.form]).toEqual([
      ['wallet_addresses[polygon]', o.walletAddress],
      ['lock_wallet_address', 'true'],
      ['destination_currencies[]', 'usdc'],
      ['destination_networks[]', 'polygon'],
      ['destination_currency', 'usdc'],
      ['destination_network', 'polygon'],
      ['source_amount', '149.99'],
      ['source_currency', 'usd'],
      ['customer_ip_address', '203.0.113.7'],
      ['metadata[payment_id]', o.paymentId],
    ]);
    expect(created.providerReference).toMatch(/^cos_/);
    expect(new URL(created.url).origin).toBe('https://crypto.link.com');
    expect(created.expiresAt).toBeUndefined();
  });

  it('fees on top: fixes the USDC with destination_amount (documented as exclusive of source_amount), currency and network set', async () => {
    const o = { ...sampleOrder('USD'), usdc: 151_505_051n };
    redirectCheckout(await kit.open(o, { adapter: await build() }));
    const { form } = kit.fake.requests.at(-1)!;
    expect(form.get('destination_amount')).toBe('151.505051');
    expect(form.has('source_amount')).toBe(false);
    expect([form.get('destination_currency'), form.get('destination_network'), form.get('source_currency')]).toEqual([
      'usdc',
      'polygon',
      'usd',
    ]);
  });

  it('its fake refuses a session with both amounts, as Stripe documents them mutually exclusive', async () => {
    const response = await fetch(`${kit.fake.url}/v1/crypto/onramp_sessions`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${STRIPE_FAKE_SECRET.test}:`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'source_amount=10.00&destination_amount=10&destination_currency=usdc&destination_network=polygon',
    });
    expect(response.status).toBe(400);
    expect(kit.fake.problems).toEqual(['onramp session: source_amount and destination_amount given, documented one of the two']);
    kit.fake.problems.length = 0;
  });

  it('retries a 503 and a timeout with the same Idempotency-Key, which Stripe answers with the same session', async () => {
    let calls = 0;
    kit.fake.script = () => (++calls === 1 ? { status: 503, body: '{}' } : calls === 2 ? 'hang' : undefined);
    const first = redirectCheckout(await open(await build()));
    expect(kit.fake.requests.map((request) => request.headers['idempotency-key'])).toEqual(Array(3).fill(sampleOrder('USD').paymentId));
    kit.fake.script = undefined;
    const again = redirectCheckout(await open(await build()));
    expect(again.providerReference).toBe(first.providerReference);
    // A fresh checkout of the same payment (the customer's link) has its own key: a new session.
    const fresh = redirectCheckout(await open(await build(), `${sampleOrder('USD').paymentId}:2`));
    expect(fresh.providerReference).not.toBe(first.providerReference);
  });

  it('the key selects the mode; a contradicting MODE is refused', () => {
    expect(stripe.modeOf(kit.settings('test'), undefined)).toBe('test');
    expect(stripe.modeOf(kit.settings('live'), undefined)).toBe('live');
    expect(() => stripe.modeOf(kit.settings('test'), 'live')).toThrow(/contradicts/);
  });
});

describe('stripe webhook', () => {
  const o = sampleOrder('USD');

  it('accepts any matching v1 among several, within 5 minutes either way; refuses another secret, older, a second header', async () => {
    const adapter = await build();
    const body = event(o.paymentId, o.walletAddress, 'fulfillment_processing');
    const rolled = signed(body, CONTRACT_NOW_MS, WHSEC, ['0'.repeat(64)]);
    await expect(adapter.verifyWebhook(rolled.rawBody, rolled.headers)).resolves.toMatchObject({
      kind: 'event',
      event: { status: 'pending' },
    });
    for (const offset of [-299_000, 299_000]) {
      const near = signed(body, CONTRACT_NOW_MS + offset);
      await expect(adapter.verifyWebhook(near.rawBody, near.headers)).resolves.toMatchObject({ kind: 'event' });
    }
    for (const offset of [-301_000, 301_000]) {
      const far = signed(body, CONTRACT_NOW_MS + offset);
      await expect(adapter.verifyWebhook(far.rawBody, far.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    }
    const other = signed(body, CONTRACT_NOW_MS, 'whsec_another_endpoint_secret_000');
    await expect(adapter.verifyWebhook(other.rawBody, other.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    const good = signed(body, CONTRACT_NOW_MS);
    await expect(
      adapter.verifyWebhook(good.rawBody, { 'stripe-signature': [good.headers['stripe-signature'], good.headers['stripe-signature']] }),
    ).rejects.toBeInstanceOf(ProviderWebhookError);
    await expect(adapter.verifyWebhook(good.rawBody, { 'stripe-signature': 'v1=abc' })).rejects.toBeInstanceOf(ProviderWebhookError);
  });

  it.each(Object.entries(STRIPE_SESSION_STATUS))('session status %s maps to %s, naming the payment and the session', (status, mapped) => {
    expect(stripeWebhookEvent(Buffer.from(JSON.stringify(event(o.paymentId, o.walletAddress, status))))).toMatchObject({
      kind: 'event',
      event: {
        status: mapped,
        rawStatus: status,
        match: { paymentId: o.paymentId, providerReference: 'cos_1NamBL2eZvKYlo2CP38sZVEW', walletAddress: o.walletAddress },
      },
    });
  });

  it('covers the five documented statuses; ignores other events and statuses; refuses a body without a session', () => {
    expect(Object.keys(STRIPE_SESSION_STATUS).sort()).toEqual(
      ['fulfillment_complete', 'fulfillment_processing', 'initialized', 'rejected', 'requires_payment'].sort(),
    );
    expect(
      stripeWebhookEvent(Buffer.from(JSON.stringify(event(o.paymentId, o.walletAddress, 'initialized', 'payment_intent.succeeded')))).kind,
    ).toBe('ignored');
    expect(stripeWebhookEvent(Buffer.from(JSON.stringify(event(o.paymentId, o.walletAddress, 'expired_someday')))).kind).toBe('ignored');
    expect(() => stripeWebhookEvent(Buffer.from('{"type":"crypto.onramp_session_updated","data":{}}'))).toThrow(ProviderWebhookError);
    expect(() => stripeWebhookEvent(Buffer.from('['))).toThrow(ProviderWebhookError);
  });
});

// https://docs.stripe.com/api/crypto/onramp_sessions/object: `rejected` names no reason.
describe('stripe decline kinds', () => {
  const kind = (status: string) => {
    const read = stripeWebhookEvent(
      Buffer.from(
        JSON.stringify({
          type: 'crypto.onramp_session_updated',
          data: {
            object: { id: 'cos_0MYvmj589O8KAxCGp14dTjiw', object: 'crypto.onramp_session', status, metadata: { payment_id: 'pay-11' } },
          },
        }),
      ),
    );
    return read.kind === 'event' ? read.event.declineKind : read.why;
  };
  it('rejected is other; fulfillment_complete none', () => {
    expect(kind('rejected')).toBe('other');
    expect(kind('fulfillment_complete')).toBeUndefined();
  });
});
