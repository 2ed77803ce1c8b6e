import { contractContext, describeAdapterContract, describeHostileWebhooks, sampleOrder } from '../../../test/support/adapter-contract';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { startGuardarianFake, type GuardarianFake } from '../../../test/support/guardarian-fake';
import { ProviderCheckoutError, type ProviderMode } from '../../provider-contract';
import { createProviderHttpClient } from '../../support/provider-http-client';
import { guardarian } from './guardarian-adapter';
import { GUARDARIAN_STATUS, guardarianWebhookEvent } from './guardarian-transaction';

let fake: GuardarianFake;
beforeAll(async () => {
  fake = await startGuardarianFake();
});
beforeEach(() => fake.reset());
afterAll(async () => {
  await http.close();
  await fake.close();
});

const http = createProviderHttpClient({ attemptTimeoutMs: 400, maxAttempts: 3, backoffBaseMs: 1 });
const settings = () => ({
  get API_KEY() {
    return fake.apiKey;
  },
  get API_URL() {
    return fake.url;
  },
});
const build = (mode: ProviderMode = 'live') =>
  Promise.resolve(guardarian.create({ ...settings() }, contractContext('guardarian', mode, { http })));
const open = async (order = sampleOrder('EUR')) =>
  (await build()).createCheckout(order, { idempotencyKey: order.paymentId, signal: AbortSignal.timeout(3000) });
const sentBody = (index = 0) => JSON.parse(fake.requests[index]!.text) as Record<string, unknown>;

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

describeAdapterContract({
  module: guardarian,
  settings: { live: settings() },
  context: () => ({ http }),
  // The redirect_url names Guardarian's transaction only: the transaction is what Guardarian was asked for.
  readCheckout: (url) => {
    expect(url.origin).toBe('https://payments.guardarian.com');
    const body = sentBody(fake.requests.length - 1);
    return {
      wallet: (body.payout_info as { payout_address: string }).payout_address,
      amount: String(body.from_amount),
      currency: String(body.from_currency),
      reference: String(body.external_partner_link_id),
    };
  },
});

describe('guardarian transaction against a local Guardarian', () => {
  it('is a JSON POST with x-api-key and the customer IP in X-Forwarded-For; every documented field; answers id and redirect_url', async () => {
    const order = sampleOrder('EUR');
    const created = redirectCheckout(await open(order));
    const [request] = fake.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/transaction' });
    expect(request!.headers['x-api-key']).toBe(fake.apiKey);
    expect(request!.headers['x-forwarded-for']).toBe('203.0.113.7');
    // The amount is a JSON number written as the decimal string was: no float in between.
    expect(request!.text.startsWith('{"from_amount":149.99,')).toBe(true);
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

  it('is never retried: Guardarian de-duplicates nothing, a second call would open a second transaction', async () => {
    fake.script = () => ({ status: 503, body: '{"statusCode":503}' });
    await expect(open()).rejects.toBeInstanceOf(ProviderCheckoutError);
    expect(fake.requests).toHaveLength(1);
  });

  it.each([
    [
      'a refusal (400)',
      { status: 400, body: '{"statusCode":400,"code":"BAD_REQUEST","message":"to_network is not supported"}' },
      'refused',
    ],
    ['a bad key (403)', { status: 403, body: '{"statusCode":403,"code":"INVALID_TOKEN","message":"Invalid token"}' }, 'refused'],
    ['5xx', { status: 500, body: '{"statusCode":500,"code":"INTERNAL_ERROR"}' }, 'unavailable'],
    ['no id', { status: 201, body: '{"redirect_url":"https://payments.guardarian.com/checkout?tid=1"}' }, 'refused'],
    ['an id of another kind', { status: 201, body: '{"id":{"x":1},"redirect_url":"https://payments.guardarian.com/x"}' }, 'refused'],
    ['no redirect_url', { status: 201, body: '{"id":5517577077,"redirect_url":null}' }, 'refused'],
    ['an http redirect_url', { status: 201, body: '{"id":5517577077,"redirect_url":"http://payments.guardarian.com/x"}' }, 'refused'],
    ['not JSON', { status: 201, body: '<html>' }, 'refused'],
    ['an array', { status: 201, body: '[]' }, 'refused'],
    ['no answer', 'hang', 'unavailable'],
  ] as const)('%s: a ProviderCheckoutError of kind %s, no key in it', async (_name, answer, kind) => {
    fake.script = () => answer;
    const error = await open().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderCheckoutError);
    expect((error as ProviderCheckoutError).kind).toBe(kind);
    expect((error as Error).message).not.toContain(fake.apiKey);
  });

  it('an amount that is not a two-decimal string is refused before any call', async () => {
    await expect(open({ ...sampleOrder('EUR'), amount: '1e3' })).rejects.toBeInstanceOf(ProviderCheckoutError);
    expect(fake.requests).toHaveLength(0);
  });

  it('the default hosts: api-payments.guardarian.com live, api-payments-staging in test mode', async () => {
    const urls: string[] = [];
    const recording = {
      request: async (request: { url: string }) => {
        urls.push(request.url);
        throw new ProviderCheckoutError('offline', 'unavailable');
      },
      close: async () => undefined,
    };
    for (const mode of ['live', 'test'] as const) {
      const adapter = await guardarian.create({ API_KEY: fake.apiKey }, contractContext('guardarian', mode, { http: recording }));
      const order = sampleOrder('EUR');
      await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: AbortSignal.timeout(1000) }).catch(() => undefined);
    }
    expect(urls).toEqual([
      'https://api-payments.guardarian.com/v1/transaction',
      'https://api-payments-staging.guardarian.com/v1/transaction',
    ]);
    expect(guardarian.modeOf({ API_KEY: fake.apiKey }, 'test')).toBe('test');
    expect(guardarian.modeOf({ API_KEY: fake.apiKey }, undefined)).toBe('live');
  });
});

describe('guardarian status look-up', () => {
  const signal = () => AbortSignal.timeout(3000);

  it('asks GET /v1/transaction/{id} with x-api-key; follows the transaction to finished with its output hash', async () => {
    const adapter = await build();
    const created = await open();
    const query = { paymentId: sampleOrder('EUR').paymentId, providerReference: created.providerReference! };
    await expect(adapter.status!(query, { signal: signal() })).resolves.toMatchObject({ status: 'pending', rawStatus: 'new' });
    const lookUp = fake.requests.at(-1)!;
    expect(lookUp).toMatchObject({ method: 'GET', path: `/v1/transaction/${created.providerReference}` });
    expect(lookUp.headers['x-api-key']).toBe(fake.apiKey);
    fake.setStatus(created.providerReference!, 'finished', `0x${'cd'.repeat(32)}`);
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
    expect(fake.requests).toHaveLength(0);
    await expect(adapter.status!({ paymentId: 'p', providerReference: '999' }, { signal: signal() })).resolves.toBeNull();
    const created = await open();
    fake.setStatus(created.providerReference!, 'exchanging');
    await expect(
      adapter.status!({ paymentId: 'p', providerReference: created.providerReference! }, { signal: signal() }),
    ).resolves.toBeNull();
  });

  it.each([
    ['5xx', { status: 502, body: '' }],
    ['not JSON', { status: 200, body: 'nope' }],
    ['another transaction', { status: 200, body: '{"id":1,"status":"finished"}' }],
  ] as const)('%s: throws, so the poller asks again later', async (_name, answer) => {
    const adapter = await build();
    fake.script = () => answer;
    await expect(adapter.status!({ paymentId: 'p', providerReference: '5517577077' }, { signal: signal() })).rejects.toThrow(/Guardarian/);
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
