import { createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { contractContext, CONTRACT_NOW_MS, describeAdapterContract, sampleOrder } from '../../../test/support/adapter-contract';
import { ProviderWebhookError, type ProviderMode } from '../../provider-contract';
import { topper } from './topper-adapter';
import { TOPPER_EVENT_STATUS, topperWebhookEvent } from './topper-webhook';
import { redirectCheckout } from '../../../test/support/checkout-target';

/** Our widget signing key (registered with Topper) and Topper's webhook key, made fresh for the run. */
const widgetKeys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const topperWebhookKeys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const webhookPublicJwk = JSON.stringify({ alg: 'ES256', ...topperWebhookKeys.publicKey.export({ format: 'jwk' }) });

const settingsFor = (mode: ProviderMode) => ({
  WIDGET_ID: mode === 'live' ? 'd259f6ac-3e8d-46eb-9e6c-c92e138b7660' : 'b9fe022b-f436-49e1-bb89-6f2e8eabf336',
  KEY_ID: mode === 'live' ? 'c084a85d-c486-4035-9c60-8cec81d8b8f5' : '15a5142e-c20f-466e-8132-234dbdae97e7',
  PRIVATE_KEY: widgetKeys.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  WEBHOOK_PUBLIC_KEY: webhookPublicJwk,
});

const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** Reads a compact ES256 JWT with node:crypto alone: the signature checked (raw r‖s), then header and claims. */
function readEs256Jwt(token: string, publicKey: KeyObject) {
  const [header = '', payload = '', signature = ''] = token.split('.');
  const valid = verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    { key: publicKey, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  return {
    valid,
    header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>,
    claims: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      iat: number;
      exp: number;
      jti: string;
      sub: string;
      source: { amount: string; asset: string; paymentMethod: { network: string } };
      target: { address: string; asset: string; network: string; recipientEditMode: string };
      partner: { continueUrl: string };
    },
  };
}

/** A webhook as docs/webhooks.mdx describes it, signed with node:crypto as a detached-payload ES256 JWS. */
function topperWebhook(body: unknown) {
  const rawBody = Buffer.from(JSON.stringify(body));
  const header = b64url(JSON.stringify({ alg: 'ES256' }));
  const signature = sign('sha256', Buffer.from(`${header}.${b64url(rawBody)}`), {
    key: topperWebhookKeys.privateKey,
    dsaEncoding: 'ieee-p1363',
  });
  return { rawBody, headers: { 'x-topper-jws-signature': `${header}..${b64url(signature)}` } };
}

function onrampEvent(name: string, paymentId: string, walletAddress: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    id: '00a991cf-a870-43af-88b8-43c51532831d',
    bootstrapTokenId: paymentId,
    data: {
      id: '966b8e24-6a65-442a-942e-577f16288789',
      status: 'completed',
      createdAt: '2026-11-25T11:58:00.000Z',
      updatedAt: '2026-11-25T12:00:00.000Z',
      origin: { amount: '149.99', asset: 'EUR', paymentMethod: { type: 'credit-card' } },
      destination: { amount: '151.20', asset: 'USDC', network: 'polygon', address: walletAddress },
      widget: { id: 'd259f6ac-3e8d-46eb-9e6c-c92e138b7660', name: 'Gateway', flow: 'crypto_onramp' },
      ...extra,
    },
  };
}

describeAdapterContract({
  module: topper,
  settings: { live: settingsFor('live'), test: settingsFor('test') },
  // The token's fields as docs/flows/crypto-onramp.mdx names them; jti is where our reference goes.
  readCheckout: (url) => {
    const { valid, claims } = readEs256Jwt(url.searchParams.get('bt') ?? '', widgetKeys.publicKey);
    expect(valid).toBe(true);
    return { wallet: claims.target.address, amount: claims.source.amount, currency: claims.source.asset, reference: claims.jti };
  },
  signWebhook: ({ paymentId, walletAddress, status }) =>
    topperWebhook(
      onrampEvent(status === 'paid' ? 'order:crypto-onramp:completed' : 'order:crypto-onramp:failed', paymentId, walletAddress),
    ),
  // The JWS carries no time; see the adapter's header comment.
  webhookHasTimestamp: false,
  webhookSignature: { header: 'x-topper-jws-signature', encoding: 'base64url', part: /(?<=\.\.).*$/ },
  hostile: {
    payload: ({ paymentId, walletAddress }) => onrampEvent('order:crypto-onramp:failed', paymentId, walletAddress),
    sign: (payload) => topperWebhook(payload),
  },
});

const open = { signal: new AbortController().signal };
const build = (mode: ProviderMode, overrides: Partial<ReturnType<typeof settingsFor>> = {}) =>
  Promise.resolve(topper.create({ ...settingsFor(mode), ...overrides }, contractContext('topper', mode)));

describe('topper bootstrap token', () => {
  it('is an ES256 JWT with typ, kid, iat, a 3-minute exp, sub = widget id and jti = our payment id, as node:crypto verifies it', async () => {
    const adapter = await build('live');
    const order = sampleOrder('EUR');
    const { url } = redirectCheckout(await adapter.createCheckout(order, { idempotencyKey: order.paymentId, ...open }));
    const parsed = new URL(url);
    expect(parsed.origin).toBe('https://app.topperpay.com');
    expect(parsed.pathname).toBe('/');
    const { valid, header, claims } = readEs256Jwt(parsed.searchParams.get('bt') ?? '', widgetKeys.publicKey);
    expect(valid).toBe(true);
    expect(header).toEqual({ alg: 'ES256', typ: 'JWT', kid: 'c084a85d-c486-4035-9c60-8cec81d8b8f5' });
    expect(claims.iat).toBe(Math.floor(CONTRACT_NOW_MS / 1000));
    expect(claims.exp - claims.iat).toBe(180);
    expect(claims.sub).toBe('d259f6ac-3e8d-46eb-9e6c-c92e138b7660');
    expect(claims.jti).toBe(order.paymentId);
    expect(claims.source).toEqual({ amount: '149.99', asset: 'EUR', paymentMethod: { network: 'card' } });
    expect(claims.target).toEqual({ address: order.walletAddress, asset: 'USDC', network: 'polygon', recipientEditMode: 'not-editable' });
    expect(claims.partner).toEqual({ continueUrl: order.returnUrl });
    // Exactly one of source.amount and target.amount (crypto-onramp.mdx).
    expect('amount' in claims.target).toBe(false);
  });

  it('says the checkout is single use and expires with the token, 3 minutes after iat', async () => {
    const adapter = await build('live');
    const order = sampleOrder('EUR');
    const created = redirectCheckout(await adapter.createCheckout(order, { idempotencyKey: order.paymentId, ...open }));
    const { claims } = readEs256Jwt(new URL(created.url).searchParams.get('bt') ?? '', widgetKeys.publicKey);
    expect(created).toMatchObject({ kind: 'redirect', singleUse: true, expiresAt: claims.exp * 1000 });
    expect(created.expiresAt).toBe(Math.floor(CONTRACT_NOW_MS / 1000) * 1000 + 180_000);
  });

  it('gives each payment its own jti, and a tampered token no longer verifies', async () => {
    const adapter = await build('live');
    const first = sampleOrder('USD');
    const second = { ...first, paymentId: '0b7e1c2d-9a3f-4c5e-8d6b-1f2a3b4c5d6e' };
    const tokens = await Promise.all(
      [first, second].map(
        async (order) =>
          new URL(redirectCheckout(await adapter.createCheckout(order, { idempotencyKey: order.paymentId, ...open })).url).searchParams.get(
            'bt',
          ) ?? '',
      ),
    );
    const jtis = tokens.map((token) => readEs256Jwt(token, widgetKeys.publicKey).claims.jti);
    expect(jtis).toEqual([first.paymentId, second.paymentId]);
    const [head = '', , signature = ''] = (tokens[0] ?? '').split('.');
    const forged = `${head}.${b64url(JSON.stringify({ ...readEs256Jwt(tokens[0] ?? '', widgetKeys.publicKey).claims, target: { address: '0x000000000000000000000000000000000000dEaD' } }))}.${signature}`;
    expect(readEs256Jwt(forged, widgetKeys.publicKey).valid).toBe(false);
  });

  it("signs with the docs' sample private JWK, and the docs' public JWK (x, y) verifies it", async () => {
    const x = 'dxk0WKKhOyFbU0eZD0plgOB8l9rM-SD5NDgnGpvg99o';
    const y = 'nIMebHLyyisqfQKkb-bCp6dVNwVqDR3FLA5ZWUZ_yQ8';
    const privateJwk = JSON.stringify({ alg: 'ES256', kty: 'EC', x, y, crv: 'P-256', d: 'mdAQEjZBkxtoVeque2wXqebfo1HY0_C2uGApqeKEaX8' });
    const adapter = await build('test', { PRIVATE_KEY: privateJwk });
    const order = sampleOrder('GBP');
    const { url } = redirectCheckout(await adapter.createCheckout(order, { idempotencyKey: order.paymentId, ...open }));
    expect(new URL(url).origin).toBe('https://app.sandbox.topperpay.com');
    const docsPublicKey = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x, y }, format: 'jwk' });
    expect(readEs256Jwt(new URL(url).searchParams.get('bt') ?? '', docsPublicKey).valid).toBe(true);
  });

  it('refuses at create a key that is not an ES256 private key, and a webhook key that is not a public JWK', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    await expect(build('live', { PRIVATE_KEY: rsa })).rejects.toThrow(/PRIVATE_KEY/);
    await expect(
      build('live', { PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nnot a key at all, but long enough to pass\n-----END PRIVATE KEY-----' }),
    ).rejects.toThrow(/PRIVATE_KEY/);
    const privateJwk = JSON.stringify({ alg: 'ES256', ...topperWebhookKeys.privateKey.export({ format: 'jwk' }) });
    await expect(build('live', { WEBHOOK_PUBLIC_KEY: privateJwk })).rejects.toThrow(/private key/);
    await expect(build('live', { WEBHOOK_PUBLIC_KEY: '{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}' })).rejects.toThrow(
      /WEBHOOK_PUBLIC_KEY/,
    );
    await expect(build('live', { WEBHOOK_PUBLIC_KEY: '{"alg":"HS256","kty":"oct","k":"c2VjcmV0"}' })).rejects.toThrow(/alg HS256/);
  });
});

describe('topper webhook signature', () => {
  // docs/webhooks.mdx, "Verifying a request": the published key, body and header.
  const docsJwk =
    '{"x":"7-INQ150R-MCWlj5X_wyGLRIRYAA-o8NakJiUq7gOGg","y":"dM-GsyJvdDOuALE3l-U9lPL8V3gY_5BPjLH539yTdKU","alg":"ES256","crv":"P-256","kid":"15a5142e-c20f-466e-8132-234dbdae97e7","kty":"EC"}';
  const docsJws = 'eyJhbGciOiJFUzI1NiJ9..2H0Ypm5sVzuSpgyZySdAJan05lYxctqhmO8btghFQQzkisvSlNvNWzQ1kqTPXTLP_dR4zQZrTsSsShAK51I4EQ';

  it("accepts Topper's published example (a body that is no event, so ignored) and refuses it on another body", async () => {
    const adapter = await build('live', { WEBHOOK_PUBLIC_KEY: docsJwk });
    const outcome = await adapter.verifyWebhook(Buffer.from('{"foo":"bar"}'), { 'x-topper-jws-signature': docsJws });
    expect(outcome.kind).toBe('ignored');
    expect(outcome.acknowledgement.statusCode).toBe(200);
    await expect(adapter.verifyWebhook(Buffer.from('{"foo":"baz"}'), { 'x-topper-jws-signature': docsJws })).rejects.toBeInstanceOf(
      ProviderWebhookError,
    );
    await expect(adapter.verifyWebhook(Buffer.from('{"foo": "bar"}'), { 'x-topper-jws-signature': docsJws })).rejects.toBeInstanceOf(
      ProviderWebhookError,
    );
  });

  it('is the published example node:crypto verifies too (so the vector itself is sound)', () => {
    const [header = '', , signature = ''] = docsJws.split('.');
    const key = createPublicKey({ key: JSON.parse(docsJwk) as { kty: string }, format: 'jwk' });
    expect(
      verify(
        'sha256',
        Buffer.from(`${header}.${b64url('{"foo":"bar"}')}`),
        { key, dsaEncoding: 'ieee-p1363' },
        Buffer.from(signature, 'base64url'),
      ),
    ).toBe(true);
  });

  it('refuses a JWS whose payload is not detached, one signed by another key, and two signature headers', async () => {
    const adapter = await build('live');
    const webhook = topperWebhook(
      onrampEvent('order:crypto-onramp:completed', sampleOrder('EUR').paymentId, sampleOrder('EUR').walletAddress),
    );
    const jws = webhook.headers['x-topper-jws-signature'];
    const [header = '', , signature = ''] = jws.split('.');
    await expect(
      adapter.verifyWebhook(webhook.rawBody, { 'x-topper-jws-signature': `${header}.${b64url(webhook.rawBody)}.${signature}` }),
    ).rejects.toBeInstanceOf(ProviderWebhookError);
    await expect(adapter.verifyWebhook(webhook.rawBody, { 'x-topper-jws-signature': [jws, jws] })).rejects.toBeInstanceOf(
      ProviderWebhookError,
    );
    const other = await build('live', {
      WEBHOOK_PUBLIC_KEY: JSON.stringify({ alg: 'ES256', ...widgetKeys.publicKey.export({ format: 'jwk' }) }),
    });
    await expect(other.verifyWebhook(webhook.rawBody, webhook.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
  });

  it('names the payment by bootstrapTokenId, the order id and the wallet', async () => {
    const adapter = await build('live');
    const order = sampleOrder('EUR');
    const webhook = topperWebhook(onrampEvent('order:crypto-onramp:charged', order.paymentId, order.walletAddress));
    const outcome = await adapter.verifyWebhook(webhook.rawBody, webhook.headers);
    expect(outcome.kind).toBe('event');
    if (outcome.kind !== 'event') return;
    expect(outcome.event).toEqual({
      match: { paymentId: order.paymentId, providerReference: '966b8e24-6a65-442a-942e-577f16288789', walletAddress: order.walletAddress },
      status: 'pending',
      rawStatus: 'order:crypto-onramp:charged',
      providerReference: '966b8e24-6a65-442a-942e-577f16288789',
      destination: { address: order.walletAddress },
    });
  });
});

describe('topper webhook events', () => {
  const order = sampleOrder('EUR');
  const read = (name: string, extra: Record<string, unknown> = {}) =>
    topperWebhookEvent(Buffer.from(JSON.stringify(onrampEvent(name, order.paymentId, order.walletAddress, extra))));

  it.each([
    ['order:crypto-onramp:committed', 'pending'],
    ['order:crypto-onramp:charged', 'pending'],
    ['order:crypto-onramp:crypto-sent', 'pending'],
    ['order:crypto-onramp:completed', 'paid'],
    ['order:crypto-onramp:failed', 'failed'],
    ['order:crypto-onramp:expired', 'failed'],
    ['order:crypto-onramp:refund:completed', 'failed'],
  ])('%s maps to %s', (name, status) => {
    const outcome = read(name);
    expect(outcome.kind).toBe('event');
    if (outcome.kind === 'event') expect([outcome.event.status, outcome.event.rawStatus]).toEqual([status, name]);
    // Only a refund may end a payment whose card was charged.
    expect(outcome.kind === 'event' && outcome.event.refunded === true).toBe(name === 'order:crypto-onramp:refund:completed');
  });

  it('covers every on-ramp event of docs/webhooks.mdx and nothing else', () => {
    expect(Object.keys(TOPPER_EVENT_STATUS)).toHaveLength(7);
  });

  it('ignores user and off-ramp events, and explains a refusal for fraud', () => {
    expect(read('user:kyc:identity:succeeded').kind).toBe('ignored');
    expect(read('order:crypto-offramp:completed').kind).toBe('ignored');
    const fraud = read('order:crypto-onramp:failed', { error: { reason: 'fraud' } });
    expect(fraud.kind === 'event' && fraud.event.reason).toMatch(/fraud/);
    expect(() => topperWebhookEvent(Buffer.from('not json'))).toThrow(ProviderWebhookError);
    expect(() => topperWebhookEvent(Buffer.from('null'))).toThrow(ProviderWebhookError);
  });
});

// The crypto-onramp events of https://docs.topperpay.com/events/crypto-onramp; `fraud` is the error reason Topper documents.
describe('topper decline kinds', () => {
  const kind = (name: string, data: Record<string, unknown> = {}) => {
    const read = topperWebhookEvent(
      Buffer.from(
        JSON.stringify({
          name,
          id: '4fa1d2c3-0000-4000-8000-000000000002',
          bootstrapTokenId: 'pay-2',
          data: { id: 'ord-2', status: 'failed', destination: { address: `0x${'1'.repeat(40)}` }, ...data },
        }),
      ),
    );
    return read.kind === 'event' ? read.event.declineKind : read.why;
  };
  it('fraud is the card refused by its checks; any other failure other; expired abandoned; completed none', () => {
    expect(kind('order:crypto-onramp:failed', { error: { reason: 'fraud' } })).toBe('card_refused');
    expect(kind('order:crypto-onramp:failed', { error: { reason: 'something-else' } })).toBe('other');
    expect(kind('order:crypto-onramp:failed')).toBe('other');
    expect(kind('order:crypto-onramp:expired', { status: 'expired' })).toBe('abandoned');
    expect(kind('order:crypto-onramp:refund:completed')).toBe('other');
    expect(kind('order:crypto-onramp:completed', { status: 'completed' })).toBeUndefined();
  });
});
