import { describeHostileWebhooks, sampleOrder, readingOf } from '../../../test/support/adapter-contract';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { startGuardarianFake } from '../../../test/support/guardarian-fake';
import { describeSessionAdapter } from '../../../test/support/session-adapter-suite';
import { ProviderCheckoutError } from '../../provider-contract';
import { guardarian } from './guardarian-adapter';
import { GUARDARIAN_STATUS, guardarianWebhookEvent } from './guardarian-transaction';

const kit = describeSessionAdapter({
  module: guardarian,
  startFake: () => startGuardarianFake(),
  settings: (fake) => ({ API_KEY: fake.apiKey, API_URL: fake.url }),
  modes: ['live'],
  currency: 'EUR',
  contract: (fake) => ({
    // The redirect_url names Guardarian's transaction only: the transaction is what Guardarian was asked for.
    readCheckout: (url) => {
      expect(url.origin).toBe('https://payments.guardarian.com');
      const body = JSON.parse(fake().requests.at(-1)!.body) as Record<string, unknown>;
      return readingOf({
        wallet: (body.payout_info as { payout_address: string }).payout_address,
        amount: body.from_amount,
        currency: body.from_currency,
        reference: body.external_partner_link_id,
      });
    },
  }),
  secret: (fake) => fake.apiKey,
  sends: 'once',
  successStatus: 201,
  malformed: {
    'no id': '{"redirect_url":"https://payments.guardarian.com/checkout?tid=1"}',
    'an id of another kind': '{"id":{"x":1},"redirect_url":"https://payments.guardarian.com/x"}',
    'no redirect_url': '{"id":5517577077,"redirect_url":null}',
    'an http redirect_url': '{"id":5517577077,"redirect_url":"http://payments.guardarian.com/x"}',
    HTML: '<html>',
    'an array': '[]',
  },
  defaultHosts: {
    live: 'https://api-payments.guardarian.com/v1/transaction',
    test: 'https://api-payments-staging.guardarian.com/v1/transaction',
  },
  status: {
    query: { paymentId: 'p', providerReference: '5517577077' },
    error: /Guardarian/,
    failures: [['another transaction', { status: 200, body: '{"id":1,"status":"finished"}' }]],
  },
});
const { build, open } = kit;
const sentBody = (index = 0) => JSON.parse(kit.fake.requests[index]!.body) as Record<string, unknown>;

/** A webhook as https://docs.guardarian.com/docs/webhooks shows it (trimmed to the fields read, plus a few). */
const webhook = (id: number, status: string, paymentId: string, walletAddress: string) => ({
  requesterType: 'EXCHANGE',
  version: '1.0',
  payload: {
    id,
    status,
    email: 'jane+test@shop.io',
    errors: [],
    status_details: null,
    from_currency: 'EUR',
    from_amount: 149.99,
    to_currency: 'USDC',
    to_network: 'MATIC',
    to_amount: 161.2,
    output_hash: status === 'finished' ? `0x${'ab'.repeat(32)}` : null,
    payout_info: { payout_address: walletAddress },
    external_partner_link_id: paymentId,
  },
});

describe('guardarian transaction against a local Guardarian', () => {
  it('is a JSON POST with x-api-key and the customer IP in X-Forwarded-For; every documented field; answers id and redirect_url', async () => {
    const order = sampleOrder('EUR');
    const created = redirectCheckout(await open(order));
    const [request] = kit.fake.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/transaction' });
    expect(request!.headers['x-api-key']).toBe(kit.fake.apiKey);
    expect(request!.headers['x-forwarded-for']).toBe('203.0.113.7');
    // The amount is a JSON number written as the decimal string was: no float in between.
    expect(request!.body.startsWith('{"from_amount":149.99,')).toBe(true);
    expect(sentBody()).toEqual({
      from_amount: 149.99,
      from_currency: 'EUR',
      from_network: 'EUR',
      to_currency: 'USDC',
      to_network: 'MATIC',
      payout_info: { payout_address: order.walletAddress, skip_choose_payout_address: true },
      deposit: { payment_category: 'VISA_MC', skip_choose_payment_category: true },
      customer: { contact_info: { email: order.email } },
      redirects: { successful: order.returnUrl, cancelled: order.returnUrl, failed: order.returnUrl },
      external_partner_link_id: order.paymentId,
    });
    expect(created.providerReference).toBe('5517577077');
    expect(created.url).toBe('https://payments.guardarian.com/checkout?tid=5517577077');
    expect(created.expiresAt).toBeUndefined();
    expect(created.singleUse).toBeUndefined();
  });

  it('two customers behind one gateway each get a transaction within the minute; one customer twice is refused, unavailable', async () => {
    await open({ ...sampleOrder('EUR'), customerIp: '198.51.100.1' });
    await open({ ...sampleOrder('EUR'), customerIp: '198.51.100.2' });
    const again = await open({ ...sampleOrder('EUR'), customerIp: '198.51.100.1' }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ProviderCheckoutError);
    expect((again as ProviderCheckoutError).kind).toBe('unavailable');
  });

  it('the mode is live unless MODE says test', () => {
    expect(guardarian.modeOf({ API_KEY: kit.fake.apiKey }, 'test')).toBe('test');
    expect(guardarian.modeOf({ API_KEY: kit.fake.apiKey }, undefined)).toBe('live');
  });
});

describe('guardarian status look-up', () => {
  const signal = () => AbortSignal.timeout(3000);

  it('asks GET /v1/transaction/{id} with x-api-key; follows the transaction to finished with its output hash', async () => {
    const adapter = await build();
    const created = await open();
    const query = { paymentId: sampleOrder('EUR').paymentId, providerReference: created.providerReference! };
    await expect(adapter.status!(query, { signal: signal() })).resolves.toMatchObject({ status: 'pending', rawStatus: 'new' });
    const lookUp = kit.fake.requests.at(-1)!;
    expect(lookUp).toMatchObject({ method: 'GET', path: `/v1/transaction/${created.providerReference}` });
    expect(lookUp.headers['x-api-key']).toBe(kit.fake.apiKey);
    kit.fake.setStatus(created.providerReference!, 'finished', `0x${'cd'.repeat(32)}`);
    await expect(adapter.status!(query, { signal: signal() })).resolves.toEqual({
      match: { paymentId: query.paymentId, providerReference: created.providerReference, walletAddress: sampleOrder('EUR').walletAddress },
      status: 'paid',
      rawStatus: 'finished',
      providerReference: created.providerReference,
      destination: { address: sampleOrder('EUR').walletAddress, network: 'MATIC', asset: 'USDC' },
      txHash: `0x${'cd'.repeat(32)}`,
    });
  });

  it('null before a checkout gave an id, and for an id Guardarian does not know; an undocumented status says nothing yet', async () => {
    const adapter = await build();
    await expect(adapter.status!({ paymentId: sampleOrder('EUR').paymentId }, { signal: signal() })).resolves.toBeNull();
    expect(kit.fake.requests).toHaveLength(0);
    await expect(adapter.status!({ paymentId: 'p', providerReference: '999' }, { signal: signal() })).resolves.toBeNull();
    const created = await open();
    kit.fake.setStatus(created.providerReference!, 'exchanging');
    await expect(
      adapter.status!({ paymentId: 'p', providerReference: created.providerReference! }, { signal: signal() }),
    ).resolves.toBeNull();
  });
});

describe('guardarian webhook (unsigned: a hint)', () => {
  const o = sampleOrder('EUR');

  it('the descriptor says its webhooks are unsigned, and the adapter looks transactions up', async () => {
    expect(guardarian.descriptor.webhookUnsigned).toBe(true);
    expect((await build()).status).toBeInstanceOf(Function);
  });

  it.each(Object.entries(GUARDARIAN_STATUS).map(([raw, mapped]) => [raw, mapped.status] as const))(
    'status %s maps to %s, naming the payment, the transaction and the wallet',
    (raw, status) => {
      const read = guardarianWebhookEvent(Buffer.from(JSON.stringify(webhook(5517577077, raw, o.paymentId, o.walletAddress))));
      // Only a refund may end a payment whose card was charged.
      expect(read.kind === 'event' && read.event.refunded === true).toBe(raw === 'refunded');
      expect(guardarianWebhookEvent(Buffer.from(JSON.stringify(webhook(5517577077, raw, o.paymentId, o.walletAddress))))).toMatchObject({
        kind: 'event',
        event: {
          status,
          rawStatus: raw,
          match: { paymentId: o.paymentId, providerReference: '5517577077', walletAddress: o.walletAddress },
        },
      });
    },
  );

  it('covers the six documented statuses; paid only at finished; ignores other requesters and statuses; refuses a body without payload', async () => {
    expect(Object.keys(GUARDARIAN_STATUS).sort()).toEqual(['canceled', 'expired', 'failed', 'finished', 'new', 'refunded']);
    expect(
      Object.entries(GUARDARIAN_STATUS)
        .filter(([, v]) => v.status === 'paid')
        .map(([k]) => k),
    ).toEqual(['finished']);
    const other = { ...webhook(1, 'finished', o.paymentId, o.walletAddress), requesterType: 'PARTNER_API' };
    expect(guardarianWebhookEvent(Buffer.from(JSON.stringify(other))).kind).toBe('ignored');
    expect(guardarianWebhookEvent(Buffer.from(JSON.stringify(webhook(1, 'waiting', o.paymentId, o.walletAddress)))).kind).toBe('ignored');
    expect(() => guardarianWebhookEvent(Buffer.from('{"requesterType":"EXCHANGE"}'))).toThrow(/payload/);
    expect(() => guardarianWebhookEvent(Buffer.from('{'))).toThrow(/JSON/);
    const outcome = await (await build()).verifyWebhook(
      Buffer.from(JSON.stringify(webhook(1, 'failed', o.paymentId, o.walletAddress))),
      {},
    );
    expect(outcome).toMatchObject({ kind: 'event', acknowledgement: { statusCode: 200 } });
  });

  // Unsigned: anyone may post anything; hostile bodies are read into well-typed fields, ignored or refused, never another error.
  describeHostileWebhooks(build, webhook(5517577077, 'finished', o.paymentId, o.walletAddress), (payload) => ({
    rawBody: Buffer.from(JSON.stringify(payload)),
    headers: {},
  }));
});

// The statuses of https://docs.guardarian.com/docs/webhooks.
describe('guardarian decline kinds', () => {
  const kind = (status: string) => {
    const read = guardarianWebhookEvent(
      Buffer.from(
        JSON.stringify({ requesterType: 'EXCHANGE', version: 1, payload: { id: 4711, status, external_partner_link_id: 'pay-5' } }),
      ),
    );
    return read.kind === 'event' ? read.event.declineKind : read.why;
  };
  it.each([
    ['expired', 'abandoned'],
    ['failed', 'other'],
    ['canceled', 'other'],
    ['refunded', 'other'],
    ['finished', undefined],
  ])('%s is %s', (status, expected) => {
    expect(kind(status)).toBe(expected);
  });
});
