import { CONTRACT_NOW_MS, sampleOrder, readingOf } from '../../../test/support/adapter-contract';
import type { FakeAnswer } from '../../../test/support/documented-fake';
import { memoryEventStore } from '../../../test/support/memory-event-store';
import { describeSessionAdapter } from '../../../test/support/session-adapter-suite';
import {
  SIMPLEX_FAKE_API_KEY,
  SIMPLEX_FAKE_PARTNER,
  SIMPLEX_FAKE_QUOTE_LIFETIME_MS,
  startSimplexFake,
  type SimplexFake,
} from '../../../test/support/simplex-fake';
import { POLYGON_USDC, ProviderWebhookError, type CreatedCheckout, type ProviderAdapter } from '../../provider-contract';
import { createProviderRegistry } from '../../provider-registry';
import { simplex } from './simplex-adapter';
import { SIMPLEX_EVENT_STATUS, simplexWebhookEvent } from './simplex-events';

let store = memoryEventStore();
beforeEach(() => {
  store = memoryEventStore();
});

const formOf = (checkout: CreatedCheckout) => {
  if (checkout.kind !== 'form') throw new Error(`expected a form checkout, got ${checkout.kind}`);
  return checkout;
};

/** An event as the events API lists it (and as Simplex pushes one). */
const simplexEventSample = (name: string, payment: { id: string; partnerEndUserId: string }, timestamp = '2026-11-25T12:00:00Z') => ({
  event_id: `ev-${name}-${timestamp}`,
  name,
  payment: {
    id: payment.id,
    status: name === 'payment_simplexcc_declined' ? 'cancelled' : 'pending_simplexcc_approval',
    created_at: '2026-11-25T11:58:00Z',
    updated_at: timestamp,
    partner_end_user_id: payment.partnerEndUserId,
    fiat_total_amount: { amount: 149.99, currency: 'USD' },
    crypto_total_amount: { amount: 143.21, currency: 'USDC-MATIC' },
  },
  timestamp,
});

const quoteOk = { status: 200, body: JSON.stringify({ quote_id: 'q-1', valid_until: '2026-11-25T12:10:00Z' }) };
const paymentDataFailing = (answer: FakeAnswer) => (fake: SimplexFake) => {
  fake.answerQuote = () => quoteOk;
  fake.answerPaymentData = () => answer;
  return undefined;
};

const kit = describeSessionAdapter({
  module: simplex,
  startFake: () => startSimplexFake(() => CONTRACT_NOW_MS),
  settings: (fake) => ({ API_KEY: SIMPLEX_FAKE_API_KEY, PARTNER: SIMPLEX_FAKE_PARTNER, API_URL: fake.url }),
  modes: ['test', 'live'],
  context: () => ({ events: store }),
  contract: (fake) => ({
    // The form carries Simplex's ids only: the wallet, amount and currency are what the quote and payment data said.
    readCheckout: (url) => {
      const quote = JSON.parse(fake().quotes.at(-1)!.body) as Record<string, unknown>;
      const data = JSON.parse(fake().paymentData.at(-1)!.body) as {
        transaction_details: { payment_details: { order_id: string; payment_id: string; destination_wallet: { address: string } } };
      };
      const details = data.transaction_details.payment_details;
      expect(url.pathname).toBe('/payments/new');
      expect(url.searchParams.get('payment_id')).toBe(details.payment_id);
      return readingOf({
        wallet: details.destination_wallet.address,
        amount: quote.requested_amount,
        currency: quote.fiat_currency,
        reference: url.searchParams.get('return_url_success')?.endsWith(details.order_id) ? details.order_id : '',
      });
    },
  }),
  secret: () => SIMPLEX_FAKE_API_KEY,
  // The quote and the payment data are not documented idempotent: never sent twice.
  sends: 'once',
  malformedAmount: /not a fiat amount/,
  malformed: { 'the quote in HTML': '<html>', 'no quote_id': '{"valid_until":"2026-11-25T12:10:00Z"}' },
  failures: [
    ['the payment data refused', 'refused', paymentDataFailing({ status: 400, body: '{"error":"quote expired"}' })],
    ['the payment data 5xx', 'unavailable', paymentDataFailing({ status: 500, body: '' })],
    ['the payment data malformed', 'refused', paymentDataFailing({ status: 200, body: '{"ok":true}' })],
    ['no answer to the payment data', 'unavailable', paymentDataFailing('hang')],
  ],
  defaultHosts: {
    live: 'https://backend-wallet-api.simplexcc.com/wallet/merchant/v2/quote',
    test: 'https://sandbox.test-simplexcc.com/wallet/merchant/v2/quote',
  },
});
const { build, http } = kit;
const open = (adapter: ProviderAdapter) => kit.open(sampleOrder('USD'), { adapter });

describe('simplex checkout against a local Simplex', () => {
  it('quotes, sends the payment data, and answers the documented form to /payments/new, until the quote expires, once', async () => {
    const order = sampleOrder('USD');
    const checkout = formOf(await open(await build('live')));
    const [quote] = kit.fake.quotes;
    expect(quote!.body).toContain('"requested_amount":149.99,');
    expect(JSON.parse(quote!.body)).toEqual({
      requested_amount: 149.99,
      end_user_id: order.paymentId,
      digital_currency: 'USDC-MATIC',
      fiat_currency: 'USD',
      requested_currency: 'USD',
      wallet_id: SIMPLEX_FAKE_PARTNER,
      client_ip: '203.0.113.7',
      payment_methods: ['credit_card'],
    });
    const quoteId = (JSON.parse(kit.fake.paymentData[0]!.body) as { transaction_details: { payment_details: { quote_id: string } } })
      .transaction_details.payment_details.quote_id;
    expect(JSON.parse(kit.fake.paymentData[0]!.body)).toEqual({
      account_details: {
        app_provider_id: SIMPLEX_FAKE_PARTNER,
        app_version_id: '1',
        app_end_user_id: order.paymentId,
        email: order.email,
        signup_login: { ip: '203.0.113.7', timestamp: new Date(CONTRACT_NOW_MS).toISOString() },
      },
      transaction_details: {
        payment_details: {
          quote_id: quoteId,
          payment_id: checkout.providerReference,
          order_id: order.paymentId,
          destination_wallet: { currency: 'USDC-MATIC', address: order.walletAddress },
          original_http_ref_url: order.returnUrl,
        },
      },
    });
    expect(checkout).toEqual({
      kind: 'form',
      action: 'https://checkout.simplexcc.com/payments/new',
      fields: {
        version: '1',
        partner: SIMPLEX_FAKE_PARTNER,
        payment_flow_type: 'wallet',
        return_url_success: order.returnUrl,
        return_url_fail: order.returnUrl,
        quote_id: quoteId,
        payment_id: checkout.providerReference,
      },
      expiresAt: CONTRACT_NOW_MS + SIMPLEX_FAKE_QUOTE_LIFETIME_MS,
      singleUse: true,
      providerReference: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it('test mode posts to the sandbox checkout; each checkout has its own Simplex payment id; ASSET and CHECKOUT_URL are settings', async () => {
    const first = formOf(await open(await build('test')));
    const second = formOf(await open(await build('test')));
    expect(first.action).toBe('https://sandbox.test-simplexcc.com/payments/new');
    expect(second.fields.payment_id).not.toBe(first.fields.payment_id);
    const adapter = await build('test', { ...kit.settings(), ASSET: 'USDC-POLYGON', CHECKOUT_URL: 'https://checkout.proxy.example/' });
    const custom = formOf(await open(adapter));
    expect(custom.action).toBe('https://checkout.proxy.example/payments/new');
    expect(JSON.parse(kit.fake.quotes.at(-1)!.body)).toMatchObject({ digital_currency: 'USDC-POLYGON' });
  });
});

describe('simplex events: the poll method (read, keep, delete each); status() reads the kept copy', () => {
  const order = sampleOrder('USD');
  const mine = { id: 'a1b2c3d4-0000-4000-8000-000000000001', partnerEndUserId: order.paymentId };
  const other = { id: 'a1b2c3d4-0000-4000-8000-000000000002', partnerEndUserId: 'another-payment' };
  const consume = async () => (await build()).consumeEvents!({ signal: AbortSignal.timeout(3000) });

  it('keeps each event and deletes it at Simplex, one by one; answers what they say', async () => {
    const events = [
      simplexEventSample('payment_simplexcc_approved', mine, '2026-11-25T12:03:00Z'),
      simplexEventSample('payment_request_submitted', mine, '2026-11-25T12:01:00Z'),
      simplexEventSample('payment_simplexcc_declined', other, '2026-11-25T12:05:00Z'),
    ];
    kit.fake.events = [...events];
    const said = await consume();
    expect(said.map((event) => event.rawStatus)).toEqual([
      'payment_simplexcc_approved',
      'payment_request_submitted',
      'payment_simplexcc_declined',
    ]);
    expect(said[0]!.match).toEqual({ paymentId: order.paymentId, providerReference: mine.id });
    // The queue is empty at Simplex: each event deleted by its id, with the API key.
    expect(kit.fake.events).toEqual([]);
    expect(kit.fake.eventDeletes.map((request) => decodeURIComponent(request.path.split('/').pop()!))).toEqual(
      events.map((e) => e.event_id),
    );
    expect(kit.fake.eventDeletes.every((request) => request.headers.authorization === `ApiKey ${SIMPLEX_FAKE_API_KEY}`)).toBe(true);
    expect([...store.kept.values()].map((event) => event.eventId)).toEqual(events.map((e) => e.event_id));
    expect(store.kept.get(`simplex/${events[0]!.event_id}`)).toEqual({
      eventId: events[0]!.event_id,
      providerReference: mine.id,
      paymentId: order.paymentId,
      body: events[0],
    });
    // Nothing left: the next run reads an empty queue and keeps nothing more.
    await expect(consume()).resolves.toEqual([]);
    expect(store.kept.size).toBe(3);
  });

  it('status() reads the kept events, never the queue: the latest of the payment, by Simplex id once known', async () => {
    const adapter = await build();
    const signal = AbortSignal.timeout(3000);
    expect(await adapter.status!({ paymentId: order.paymentId }, { signal })).toBeNull();
    kit.fake.events = [
      simplexEventSample('payment_simplexcc_approved', mine, '2026-11-25T12:03:00Z'),
      simplexEventSample('payment_request_submitted', mine, '2026-11-25T12:01:00Z'),
      simplexEventSample('payment_simplexcc_declined', other, '2026-11-25T12:05:00Z'),
    ];
    // Still in Simplex's queue, not kept: status() does not see them.
    expect(await adapter.status!({ paymentId: order.paymentId }, { signal })).toBeNull();
    await consume();
    await expect(adapter.status!({ paymentId: order.paymentId }, { signal })).resolves.toMatchObject({
      status: 'charged',
      rawStatus: 'payment_simplexcc_approved',
      providerReference: mine.id,
      match: { paymentId: order.paymentId, providerReference: mine.id },
    });
    kit.fake.events.push(simplexEventSample('payment_simplexcc_crypto_sent', mine, '2026-11-25T12:09:00Z'));
    await consume();
    await expect(adapter.status!({ paymentId: order.paymentId, providerReference: mine.id }, { signal })).resolves.toMatchObject({
      status: 'paid',
    });
    // Another attempt of the same payment (a second Simplex payment id) speaks only for itself.
    await expect(
      adapter.status!({ paymentId: order.paymentId, providerReference: 'a1b2c3d4-0000-4000-8000-00000000000f' }, { signal }),
    ).resolves.toBeNull();
    expect(kit.fake.eventReads).toHaveLength(2);
  });

  it('a stop between keeping and deleting loses no event and doubles none: kept once, deleted next time', async () => {
    const first = simplexEventSample('payment_simplexcc_approved', mine, '2026-11-25T12:03:00Z');
    const second = simplexEventSample('payment_simplexcc_crypto_sent', mine, '2026-11-25T12:09:00Z');
    kit.fake.events = [first, second];
    kit.fake.answerEventDelete = () => ({ status: 503, body: '' });
    await expect(consume()).rejects.toThrow(/Simplex/);
    // Kept before the delete failed; still in Simplex's queue; the second not reached.
    expect([...store.kept.keys()]).toEqual([`simplex/${first.event_id}`]);
    expect(kit.fake.events).toHaveLength(2);
    delete kit.fake.answerEventDelete;
    await consume();
    expect(kit.fake.events).toEqual([]);
    expect(store.saves).toBe(3);
    expect([...store.kept.keys()]).toEqual([`simplex/${first.event_id}`, `simplex/${second.event_id}`]);
    await expect((await build()).status!({ paymentId: order.paymentId }, { signal: AbortSignal.timeout(3000) })).resolves.toMatchObject({
      status: 'paid',
    });
  });

  it('an event without an id cannot be deleted: it is not kept', async () => {
    const { event_id: _none, ...withoutId } = simplexEventSample('payment_simplexcc_approved', mine);
    kit.fake.events = [withoutId];
    await expect(consume()).resolves.toEqual([]);
    expect(store.kept.size).toBe(0);
    expect(kit.fake.eventDeletes).toEqual([]);
  });

  it.each([
    ['5xx', { status: 502, body: '' }],
    ['401', { status: 401, body: '{"error":"Unauthorized"}' }],
    ['not JSON', { status: 200, body: 'oops' }],
    ['no events array', { status: 200, body: '{"events":{}}' }],
  ] as const)('an events answer of %s throws (read again next time), keeping nothing', async (_name, answer) => {
    kit.fake.answerEvents = () => answer;
    await expect(consume()).rejects.toThrow(/Simplex/);
    expect(store.kept.size).toBe(0);
  });
});

describe('simplex webhook (unsigned: a hint)', () => {
  const order = sampleOrder('USD');
  const payment = { id: 'a1b2c3d4-0000-4000-8000-000000000001', partnerEndUserId: order.paymentId };

  it('is declared unsigned, and the registry gives it a receiver: the gateway answers 2xx and asks status()', async () => {
    expect(simplex.descriptor.webhookUnsigned).toBe(true);
    const registry = await createProviderRegistry({
      env: { PROVIDER_SIMPLEX_API_KEY: SIMPLEX_FAKE_API_KEY, PROVIDER_SIMPLEX_PARTNER: SIMPLEX_FAKE_PARTNER },
      production: true,
      publicUrl: 'https://pay.example.org',
      token: { chainId: 137, address: POLYGON_USDC.native },
      http,
      sharedStore: { get: async () => null, set: async () => false, deleteIfEquals: async () => false },
    });
    expect(registry.webhookReceiver('simplex')).toMatchObject({ adapter: { mode: 'live' }, providers: ['simplex'] });
  });

  it.each(Object.entries(SIMPLEX_EVENT_STATUS))("event %s maps to %s, naming our payment and Simplex's", async (name, mapped) => {
    const outcome = await (await build()).verifyWebhook(Buffer.from(JSON.stringify(simplexEventSample(name, payment))), {});
    expect(outcome).toMatchObject({
      kind: 'event',
      event: { status: mapped, rawStatus: name, match: { paymentId: order.paymentId, providerReference: payment.id } },
      acknowledgement: { statusCode: 200 },
    });
    // Only a refund may end a payment whose card was charged.
    expect(outcome.kind === 'event' && outcome.event.refunded === true).toBe(name === 'payment_simplexcc_refunded');
  });

  it('ignores an unknown event name; refuses a body that is not an event', () => {
    expect(simplexWebhookEvent(Buffer.from(JSON.stringify(simplexEventSample('payment_simplexcc_someday', payment)))).kind).toBe('ignored');
    expect(() => simplexWebhookEvent(Buffer.from('{"name":"payment_simplexcc_approved"}'))).toThrow(ProviderWebhookError);
    expect(() => simplexWebhookEvent(Buffer.from('['))).toThrow(ProviderWebhookError);
  });
});

describe('simplex decline kinds', () => {
  const kind = (name: string) => {
    const read = simplexWebhookEvent(
      Buffer.from(JSON.stringify({ event_id: 'e-13', name, payment: { id: 'sx-13', status: 'x', partner_end_user_id: 'pay-13' } })),
    );
    return read.kind === 'event' ? read.event.declineKind : read.why;
  };
  it('declined and refunded are other (no documented reason); crypto sent none', () => {
    expect(kind('payment_simplexcc_declined')).toBe('other');
    expect(kind('payment_simplexcc_refunded')).toBe('other');
    expect(kind('payment_simplexcc_crypto_sent')).toBeUndefined();
  });
});
