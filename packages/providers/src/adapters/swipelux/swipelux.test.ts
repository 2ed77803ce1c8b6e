import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import {
  CONTRACT_NOW_MS,
  contractContext,
  describeAdapterContract,
  sampleOrder,
  signatureInBodyField,
} from '../../../test/support/adapter-contract';
import { ProviderWebhookError, type AdapterContext } from '../../provider-contract';
import type { ProviderHttpClient, ProviderHttpRequest } from '../../support/provider-http-client';
import { swipelux, SWIPELUX_WEBHOOK_KEYS_URL } from './swipelux-adapter';
import { swipeluxWebhookEvent } from './swipelux-webhook';
import { redirectCheckout } from '../../../test/support/checkout-target';

const settings = { API_KEY: '123e4567-e89b-12d3-a456-426655440000' };
/** What Swipelux's POST carries besides the body. */
const JSON_HEADERS = { 'content-type': 'application/json' };

/** Swipelux's webhook key pair, as a test stands it in: the public half served as its key set. */
function webhookKeyPair(kid: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' } };
}
const swipeluxKey = webhookKeyPair('swipelux-webhook-1');
const strangerKey = webhookKeyPair('swipelux-webhook-1');

/** A local stand-in for GET https://api.swipelux.com/api/merchants/webhookKeys. */
function keyServer(keySets: object[][]): ProviderHttpClient & { requests: ProviderHttpRequest[] } {
  const requests: ProviderHttpRequest[] = [];
  return {
    requests,
    async request(request) {
      requests.push(request);
      expect(request.method).toBe('GET');
      expect(request.url).toBe(SWIPELUX_WEBHOOK_KEYS_URL);
      const keys = keySets[Math.min(requests.length - 1, keySets.length - 1)];
      return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ keys }) };
    },
    close: async () => undefined,
  };
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/**
 * A flattened JWS of the claims built with node:crypto alone (ECDSA P-256, SHA-256, raw r‖s over
 * `protected.payload`), not with jose, the library the adapter verifies with: a signer independent of the verifier.
 */
function nodeSignedWebhook(claims: unknown, privateKey: KeyObject, header: object = { alg: 'ES256', typ: 'JWT' }) {
  const protectedHeader = base64url(JSON.stringify(header));
  const payload = base64url(JSON.stringify(claims));
  const signature = sign('sha256', Buffer.from(`${protectedHeader}.${payload}`), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return Buffer.from(JSON.stringify({ protected: protectedHeader, payload, signature: signature.toString('base64url') }));
}

/** Swipelux's webhook as its key set names the key (kid). */
function swipeluxWebhook(claims: unknown, privateKey: KeyObject, kid = 'swipelux-webhook-1') {
  return { rawBody: nodeSignedWebhook(claims, privateKey, { alg: 'ES256', typ: 'JWT', kid }), headers: JSON_HEADERS };
}

const context = (overrides: Partial<AdapterContext> = {}) =>
  contractContext('swipelux', 'live', { http: keyServer([[swipeluxKey.jwk]]), ...overrides });

describeAdapterContract({
  module: swipelux,
  settings: { live: settings, test: settings },
  context: () => ({ http: keyServer([[swipeluxKey.jwk]]) }),
  // The Payment Link page: one parameter, specificSettings, the widget settings as JSON.
  readCheckout: (url) => {
    const widget = JSON.parse(url.searchParams.get('specificSettings') ?? '{}') as {
      externalId?: string;
      availablePayCurrency?: string;
      defaultValues?: { targetAddress?: { value?: string }; fiatAmount?: number };
    };
    return {
      wallet: widget.defaultValues?.targetAddress?.value ?? '',
      amount: String(widget.defaultValues?.fiatAmount ?? ''),
      currency: widget.availablePayCurrency ?? '',
      reference: widget.externalId ?? '',
    };
  },
  signWebhook: ({ paymentId, status }, nowMs) =>
    swipeluxWebhook(
      { orderId: 'ord_8Jq2LxV0', externalId: paymentId, status: status === 'paid' ? 'SUCCESS' : 'FAILED', eventTs: nowMs },
      swipeluxKey.privateKey,
    ),
  webhookSignature: signatureInBodyField('signature', 'base64url'),
  hostile: {
    payload: ({ paymentId }) => ({ orderId: 'ord_8Jq2LxV0', externalId: paymentId, status: 'FAILED', eventTs: CONTRACT_NOW_MS }),
    sign: (payload) => swipeluxWebhook(payload, swipeluxKey.privateKey),
  },
});

describe('swipelux Payment Link', () => {
  const link = async (mode: 'live' | 'test', amount = '149.99') => {
    const adapter = await swipelux.create(settings, contractContext('swipelux', mode));
    const order = { ...sampleOrder('EUR'), amount };
    const created = await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: new AbortController().signal });
    const url = new URL(redirectCheckout(created).url);
    return {
      url,
      raw: url.searchParams.get('specificSettings') ?? '',
      widget: JSON.parse(url.searchParams.get('specificSettings') ?? '{}'),
    };
  };

  it('carries the widget settings: card only, USDC on Polygon, the wallet locked, our reference', async () => {
    const { url, widget } = await link('live');
    expect(url.origin).toBe('https://track.swipelux.com');
    expect([...url.searchParams.keys()]).toEqual(['specificSettings']);
    expect(widget).toEqual({
      apiKey: settings.API_KEY,
      externalId: sampleOrder('EUR').paymentId,
      paymentChannel: 'CARD_PAYMENT',
      availablePayCurrency: 'EUR',
      availableReceiveCurrency: { code: 'USDC', protocol: 'POLYGON' },
      defaultValues: {
        email: { value: 'jane+test@shop.io', editable: true },
        targetAddress: { value: sampleOrder('EUR').walletAddress, editable: false },
        fiatAmount: 149.99,
      },
      forceNewTransaction: true,
    });
  });

  it('writes fiatAmount as the JSON number of the decimal string, digit for digit', async () => {
    expect((await link('live', '149.99')).raw).toContain('"fiatAmount":149.99');
    expect((await link('live', '0.10')).raw).toContain('"fiatAmount":0.10');
    expect((await link('live', '1000000.00')).raw).toContain('"fiatAmount":1000000.00');
  });

  it('refuses an amount that is not a plain decimal rather than writing invalid JSON', async () => {
    await expect(link('live', '1e3')).rejects.toThrow(/not a decimal amount/);
    await expect(link('live', '007.00')).rejects.toThrow(/not a decimal amount/);
  });

  it('points the widget at Swipelux staging in test mode only', async () => {
    expect((await link('test')).widget.widgetUrl).toBe('https://staging.swipelux.com');
    expect((await link('live')).widget.widgetUrl).toBeUndefined();
  });
});

describe('swipelux webhook signature', () => {
  const claims = (overrides: object = {}) => ({
    orderId: 'ord_8Jq2LxV0',
    externalId: sampleOrder('EUR').paymentId,
    status: 'SUCCESS',
    eventTs: CONTRACT_NOW_MS,
    ...overrides,
  });

  it('accepts a token signed with node:crypto alone (ES256 over protected.payload, raw r‖s)', async () => {
    const adapter = await swipelux.create(settings, context());
    const outcome = await adapter.verifyWebhook(nodeSignedWebhook(claims(), swipeluxKey.privateKey), JSON_HEADERS);
    expect(outcome).toMatchObject({
      kind: 'event',
      event: {
        status: 'paid',
        rawStatus: 'SUCCESS',
        providerReference: 'ord_8Jq2LxV0',
        match: { paymentId: sampleOrder('EUR').paymentId },
      },
    });
    expect(outcome.acknowledgement.statusCode).toBe(200);
  });

  it('refuses a token signed by another key, and one whose signature was moved to another payload', async () => {
    const adapter = await swipelux.create(settings, context());
    await expect(adapter.verifyWebhook(swipeluxWebhook(claims(), strangerKey.privateKey).rawBody, JSON_HEADERS)).rejects.toBeInstanceOf(
      ProviderWebhookError,
    );
    const genuine = JSON.parse(swipeluxWebhook(claims(), swipeluxKey.privateKey).rawBody.toString()) as Record<string, string>;
    const forged = { ...genuine, payload: base64url(JSON.stringify(claims({ externalId: 'another-payment' }))) };
    await expect(adapter.verifyWebhook(Buffer.from(JSON.stringify(forged)), JSON_HEADERS)).rejects.toBeInstanceOf(ProviderWebhookError);
  });

  it('refuses an unsigned (alg none) token and an HMAC token keyed with the public key', async () => {
    const adapter = await swipelux.create(settings, context());
    const payload = base64url(JSON.stringify(claims()));
    const none = { protected: base64url('{"alg":"none"}'), payload, signature: '' };
    await expect(adapter.verifyWebhook(Buffer.from(JSON.stringify(none)), JSON_HEADERS)).rejects.toBeInstanceOf(ProviderWebhookError);
    const header = base64url('{"alg":"HS256"}');
    const hs = {
      protected: header,
      payload,
      signature: createHmac('sha256', JSON.stringify(swipeluxKey.jwk)).update(`${header}.${payload}`).digest('base64url'),
    };
    await expect(adapter.verifyWebhook(Buffer.from(JSON.stringify(hs)), JSON_HEADERS)).rejects.toBeInstanceOf(ProviderWebhookError);
  });

  it('refuses a stale eventTs in seconds as in milliseconds, and a token without one', async () => {
    const adapter = await swipelux.create(settings, context());
    const sign = async (overrides: object) => swipeluxWebhook(claims(overrides), swipeluxKey.privateKey).rawBody;
    await expect(
      adapter.verifyWebhook(await sign({ eventTs: Math.floor(CONTRACT_NOW_MS / 1000) - 3600 }), JSON_HEADERS),
    ).rejects.toBeInstanceOf(ProviderWebhookError);
    await expect(adapter.verifyWebhook(await sign({ eventTs: CONTRACT_NOW_MS + 3_600_000 }), JSON_HEADERS)).rejects.toBeInstanceOf(
      ProviderWebhookError,
    );
    await expect(adapter.verifyWebhook(await sign({ eventTs: undefined }), JSON_HEADERS)).rejects.toBeInstanceOf(ProviderWebhookError);
    await expect(
      adapter.verifyWebhook(await sign({ eventTs: Math.floor(CONTRACT_NOW_MS / 1000) - 60 }), JSON_HEADERS),
    ).resolves.toMatchObject({ kind: 'event' });
  });

  it('re-fetches the key set once when a signature verifies with no cached key (rotation), not on every forgery', async () => {
    let now = CONTRACT_NOW_MS;
    const rotated = webhookKeyPair('swipelux-webhook-2');
    const http = keyServer([[swipeluxKey.jwk], [rotated.jwk]]);
    const adapter = await swipelux.create(settings, context({ http, now: () => now }));
    await adapter.verifyWebhook(swipeluxWebhook(claims(), swipeluxKey.privateKey).rawBody, JSON_HEADERS);
    expect(http.requests).toHaveLength(1);
    now += 120_000;
    const afterRotation = swipeluxWebhook(claims({ eventTs: now }), rotated.privateKey, 'swipelux-webhook-2');
    await expect(adapter.verifyWebhook(afterRotation.rawBody, JSON_HEADERS)).resolves.toMatchObject({ kind: 'event' });
    expect(http.requests).toHaveLength(2);
    const forgery = swipeluxWebhook(claims({ eventTs: now }), strangerKey.privateKey, 'swipelux-webhook-9');
    await expect(adapter.verifyWebhook(forgery.rawBody, JSON_HEADERS)).rejects.toBeInstanceOf(ProviderWebhookError);
    expect(http.requests).toHaveLength(2);
  });

  it('fails with a plain error, not as a forgery, when the key set cannot be fetched', async () => {
    const down: ProviderHttpClient = { request: async () => ({ statusCode: 503, headers: {}, body: '' }), close: async () => undefined };
    const adapter = await swipelux.create(settings, context({ http: down }));
    const rejection = adapter.verifyWebhook(swipeluxWebhook(claims(), swipeluxKey.privateKey).rawBody, JSON_HEADERS);
    await expect(rejection).rejects.toThrow(/HTTP 503/);
    await expect(rejection).rejects.not.toBeInstanceOf(ProviderWebhookError);
  });

  it('refuses a body not posted as application/json', async () => {
    const adapter = await swipelux.create(settings, context());
    const { rawBody } = swipeluxWebhook(claims(), swipeluxKey.privateKey);
    await expect(adapter.verifyWebhook(rawBody, { 'content-type': 'text/plain' })).rejects.toBeInstanceOf(ProviderWebhookError);
    await expect(adapter.verifyWebhook(rawBody, { 'content-type': 'application/json; charset=utf-8' })).resolves.toMatchObject({
      kind: 'event',
    });
  });

  it('refuses a body that is not a flattened JWS', async () => {
    const adapter = await swipelux.create(settings, context());
    await expect(adapter.verifyWebhook(Buffer.from('not json'), JSON_HEADERS)).rejects.toBeInstanceOf(ProviderWebhookError);
    await expect(adapter.verifyWebhook(Buffer.from(JSON.stringify(claims())), JSON_HEADERS)).rejects.toBeInstanceOf(ProviderWebhookError);
  });
});

describe('swipelux webhook statuses', () => {
  it.each([
    ['PROCESSING', 'pending'],
    ['SUCCESS', 'paid'],
    ['FAILED', 'failed'],
  ])('%s maps to %s', (rawStatus, status) => {
    expect(swipeluxWebhookEvent({ orderId: 'ord_1', externalId: 'pay-1', status: rawStatus, eventTs: 1 })).toMatchObject({
      kind: 'event',
      event: { status, rawStatus },
    });
  });

  it('ignores an undocumented status, and names the order by Swipelux id when there is no externalId', () => {
    expect(swipeluxWebhookEvent({ orderId: 'ord_1', status: 'SOMETHING_NEW' })).toMatchObject({ kind: 'ignored' });
    expect(swipeluxWebhookEvent({ orderId: 'ord_1', status: 'SUCCESS' })).toMatchObject({
      kind: 'event',
      event: { match: { providerReference: 'ord_1' } },
    });
    expect(() => swipeluxWebhookEvent({ status: 'SUCCESS' })).toThrow(ProviderWebhookError);
  });
});

describe('swipelux decline kinds', () => {
  const kind = (status: string) => {
    const read = swipeluxWebhookEvent({ status, orderId: 'sw-10', externalId: 'pay-10', eventTs: 1_764_000_000 });
    return read.kind === 'event' ? read.event.declineKind : read.why;
  };
  it('FAILED (no documented reason) is other; SUCCESS none', () => {
    expect(kind('FAILED')).toBe('other');
    expect(kind('SUCCESS')).toBeUndefined();
  });
});
