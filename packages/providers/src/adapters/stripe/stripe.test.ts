import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import {
  contractContext,
  signatureInHeader,
  CONTRACT_NOW_MS,
  describeAdapterContract,
  sampleOrder,
} from '../../../test/support/adapter-contract';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { ProviderCheckoutError, ProviderWebhookError, type ProviderMode } from '../../provider-contract';
import { createProviderHttpClient } from '../../support/provider-http-client';
import { stripe } from './stripe-adapter';
import { STRIPE_SESSION_STATUS, stripeWebhookEvent } from './stripe-webhook';

const SECRET = { live: 'sk_live_51Nq8Xb2eZvKYlo2C0aBcDeFgH', test: 'sk_test_51Nq8Xb2eZvKYlo2C0aBcDeFgH' };
const WHSEC = 'whsec_5f3a1c9e7b2d4f6a8c0e1b3d5f7a9c2e';

interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  form: URLSearchParams;
}

/**
 * A local Stripe: POST /v1/crypto/onramp_sessions as docs.stripe.com documents it (basic auth with
 * the secret key, a form body, Idempotency-Key honoured: a repeated key gets the first answer).
 */
let server: Server;
let apiUrl = '';
const seen: SeenRequest[] = [];
const byKey = new Map<string, string>();
let script: ((request: SeenRequest) => { status: number; body: string } | 'hang' | undefined) | undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        form: new URLSearchParams(Buffer.concat(chunks).toString()),
      };
      seen.push(request);
      const scripted = script?.(request);
      if (scripted === 'hang') return;
      const answer = scripted ?? documented(request);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  apiUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
beforeEach(() => {
  seen.length = 0;
  byKey.clear();
  script = undefined;
});
afterAll(async () => {
  await http.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function documented(request: SeenRequest): { status: number; body: string } {
  const error = (status: number, message: string) => ({
    status,
    body: JSON.stringify({ error: { type: 'invalid_request_error', message } }),
  });
  if (request.method !== 'POST' || request.path !== '/v1/crypto/onramp_sessions') return error(404, 'Unrecognized request URL');
  const [user, password] = Buffer.from(String(request.headers.authorization).replace(/^Basic /, ''), 'base64')
    .toString()
    .split(':');
  if (user !== SECRET.test && user !== SECRET.live) return error(401, 'Invalid API Key provided');
  if (password !== '') return error(401, 'the secret key is the user, with no password');
  if (request.headers['content-type'] !== 'application/x-www-form-urlencoded') return error(400, 'form-encoded body expected');
  const key = String(request.headers['idempotency-key'] ?? '');
  const repeat = byKey.get(key);
  if (repeat) return { status: 200, body: repeat };
  const id = `cos_${randomBytes(12).toString('hex')}`;
  const body = JSON.stringify({
    id,
    object: 'crypto.onramp_session',
    client_secret: `${id}_secret_${randomBytes(8).toString('hex')}`,
    livemode: user === SECRET.live,
    metadata: { payment_id: request.form.get('metadata[payment_id]') },
    redirect_url: `https://crypto.link.com?session_hash=${randomBytes(16).toString('hex')}`,
    status: 'initialized',
    transaction_details: {
      destination_currency: request.form.get('destination_currency'),
      destination_network: request.form.get('destination_network'),
      lock_wallet_address: request.form.get('lock_wallet_address') === 'true',
      source_amount: request.form.get('source_amount'),
      source_currency: request.form.get('source_currency'),
      wallet_addresses: { polygon: request.form.get('wallet_addresses[polygon]') },
    },
  });
  if (key) byKey.set(key, body);
  return { status: 200, body };
}

const http = createProviderHttpClient({ attemptTimeoutMs: 400, maxAttempts: 3, backoffBaseMs: 1 });
const settings = (mode: ProviderMode) => ({
  SECRET_KEY: SECRET[mode],
  WEBHOOK_SECRET: WHSEC,
  get API_URL() {
    return apiUrl;
  },
});
const build = (mode: ProviderMode = 'test') =>
  Promise.resolve(stripe.create({ ...settings(mode) }, contractContext('stripe', mode, { http })));
const open = (adapter: Awaited<ReturnType<typeof build>>, key = sampleOrder('USD').paymentId) =>
  adapter.createCheckout(sampleOrder('USD'), { idempotencyKey: key, signal: AbortSignal.timeout(3000) });

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

describeAdapterContract({
  module: stripe,
  settings: { live: settings('live'), test: settings('test') },
  context: () => ({ http }),
  // The hosted onramp URL carries an opaque hash: the session it stands for is what Stripe was asked for.
  readCheckout: (url) => {
    const request = seen.at(-1)!;
    expect(url.origin).toBe('https://crypto.link.com');
    return {
      wallet: request.form.get('wallet_addresses[polygon]') ?? '',
      amount: request.form.get('source_amount') ?? '',
      currency: request.form.get('source_currency') ?? '',
      reference: request.form.get('metadata[payment_id]') ?? '',
    };
  },
  signWebhook: ({ paymentId, walletAddress, status }, nowMs) =>
    signed(event(paymentId, walletAddress, status === 'paid' ? 'fulfillment_complete' : 'rejected'), nowMs),
  webhookSignature: signatureInHeader('stripe-signature', 'hex', /(?<=v1=)[0-9a-f]+$/),
  hostile: {
    payload: ({ paymentId, walletAddress }) => event(paymentId, walletAddress, 'rejected'),
    sign: (payload, nowMs) => signed(payload as object, nowMs),
  },
});

describe('stripe onramp session against a local Stripe', () => {
  it('is a form-encoded POST with basic auth, the idempotency key and every documented field; answers cos_ and redirect_url', async () => {
    const created = redirectCheckout(await open(await build('live')));
    const [request] = seen;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/crypto/onramp_sessions' });
    expect(request!.headers.authorization).toBe(`Basic ${Buffer.from(`${SECRET.live}:`).toString('base64')}`);
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

  it('retries a 503 and a timeout with the same Idempotency-Key, which Stripe answers with the same session', async () => {
    let calls = 0;
    script = () => (++calls === 1 ? { status: 503, body: '{}' } : calls === 2 ? 'hang' : undefined);
    const first = redirectCheckout(await open(await build()));
    expect(seen.map((request) => request.headers['idempotency-key'])).toEqual(Array(3).fill(sampleOrder('USD').paymentId));
    script = undefined;
    const again = redirectCheckout(await open(await build()));
    expect(again.providerReference).toBe(first.providerReference);
    // A fresh checkout of the same payment (the customer's link) has its own key: a new session.
    const fresh = redirectCheckout(await open(await build(), `${sampleOrder('USD').paymentId}:2`));
    expect(fresh.providerReference).not.toBe(first.providerReference);
  });

  it.each([
    ['a refusal (400)', { status: 400, body: '{"error":{"message":"Onramp is not available in this region"}}' }, 'refused'],
    ['a bad key (401)', { status: 401, body: '{"error":{"message":"Invalid API Key provided"}}' }, 'refused'],
    ['5xx every time', { status: 500, body: '{}' }, 'unavailable'],
    ['no id', { status: 200, body: '{"redirect_url":"https://crypto.link.com?x=1"}' }, 'refused'],
    ['no redirect_url', { status: 200, body: '{"id":"cos_1","redirect_url":null}' }, 'refused'],
    ['not JSON', { status: 200, body: 'OK' }, 'refused'],
    ['no answer', 'hang', 'unavailable'],
  ] as const)('%s: a ProviderCheckoutError of kind %s, no secret in it', async (_name, answer, kind) => {
    script = () => answer;
    const error = await open(await build(), 'k').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderCheckoutError);
    expect((error as ProviderCheckoutError).kind).toBe(kind);
    expect((error as Error).message).not.toContain(SECRET.test);
  });

  it('the key selects the mode; a contradicting MODE is refused; the default host is api.stripe.com', async () => {
    expect(stripe.modeOf(settings('test'), undefined)).toBe('test');
    expect(stripe.modeOf(settings('live'), undefined)).toBe('live');
    expect(() => stripe.modeOf(settings('test'), 'live')).toThrow(/contradicts/);
    const urls: string[] = [];
    const recording = {
      request: async (request: { url: string }) => {
        urls.push(request.url);
        throw new ProviderCheckoutError('offline', 'unavailable');
      },
      close: async () => undefined,
    };
    const adapter = await stripe.create(
      { SECRET_KEY: SECRET.test, WEBHOOK_SECRET: WHSEC },
      contractContext('stripe', 'test', { http: recording }),
    );
    await open(adapter).catch(() => undefined);
    expect(urls).toEqual(['https://api.stripe.com/v1/crypto/onramp_sessions']);
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
