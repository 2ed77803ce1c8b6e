import { execFileSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTRACT_NOW_MS, contractContext, describeAdapterContract, sampleOrder } from '../../../test/support/adapter-contract';
import { ProviderWebhookError, type ProviderMode } from '../../provider-contract';
import { createRampAdapter, RAMP_WEBHOOK_PUBLIC_KEYS, rampnetwork, type RampSettings } from './rampnetwork-adapter';
import { rampWebhookEvent } from './rampnetwork-webhook';
import { redirectCheckout } from '../../../test/support/checkout-target';

const live: RampSettings = { HOST_API_KEY: 'liveHostApiKey0123456789', HOST_APP_NAME: 'Shop Pay' };
const test: RampSettings = { HOST_API_KEY: 'demoHostApiKey0123456789' };

/** Key pairs standing in for Ramp's production and staging keys (Ramp's private keys sign nothing for us). */
const keyPairs: Record<ProviderMode, { privateKey: KeyObject; publicKey: KeyObject }> = {
  live: generateKeyPairSync('ec', { namedCurve: 'secp256k1' }),
  test: generateKeyPairSync('ec', { namedCurve: 'secp256k1' }),
};
const testPublicKeys: Record<ProviderMode, string> = {
  live: keyPairs.live.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  test: keyPairs.test.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
};
const withTestKeys = {
  ...rampnetwork,
  create: (values: RampSettings, context: Parameters<typeof rampnetwork.create>[1]) => createRampAdapter(values, context, testPublicKeys),
};

/** The docs' serialisation written out again here: keys sorted at every level, no whitespace. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${sortedJson(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A webhook as Ramp's reference describes it, signed with node:crypto directly (DER ECDSA, SHA-256, base64). */
function rampWebhook(body: unknown, privateKey: KeyObject, rawText = JSON.stringify(body)) {
  const signature = sign('sha256', Buffer.from(sortedJson(body)), { key: privateKey, dsaEncoding: 'der' }).toString('base64');
  return { rawBody: Buffer.from(rawText), headers: { 'x-body-signature': signature } };
}

function purchaseEvent(type: string, status: string, receiverAddress: string) {
  return {
    type,
    purchase: {
      id: '9q4bwbq4b8d4gjr',
      status,
      receiverAddress,
      asset: {
        address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
        symbol: 'USDC',
        chain: 'MATIC',
        type: 'MATIC_ERC20',
        name: 'USD Coin',
        decimals: 6,
      },
      cryptoAmount: '145120000',
      fiatCurrency: 'USD',
      fiatValue: 149.99,
      paymentMethodType: 'CARD_PAYMENT',
      createdAt: '2026-11-25T11:58:00.000Z',
      updatedAt: '2026-11-25T11:59:30.000Z',
    },
  };
}

describeAdapterContract({
  module: withTestKeys,
  settings: { live, test },
  // Ramp takes no order reference: our id is the last segment of the receipt page in finalUrl.
  readCheckout: { wallet: 'userAddress', amount: 'fiatValue', currency: 'fiatCurrency', receiptIn: 'finalUrl' },
  // RELEASED is Ramp's "crypto sent"; RETURNED its "money given back" (no purchase webhook says EXPIRED).
  signWebhook: ({ walletAddress, status }) =>
    rampWebhook(
      status === 'paid' ? purchaseEvent('RELEASED', 'RELEASED', walletAddress) : purchaseEvent('RETURNED', 'PAYMENT_FAILED', walletAddress),
      keyPairs.live.privateKey,
    ),
  webhookHasTimestamp: false,
  webhookSignature: { header: 'x-body-signature', encoding: 'base64' },
  hostile: {
    payload: ({ walletAddress }) => purchaseEvent('RELEASED', 'RELEASED', walletAddress),
    sign: (payload) => rampWebhook(payload, keyPairs.live.privateKey),
  },
});

describe('rampnetwork webhook signature', () => {
  const order = sampleOrder('USD');
  const adapterFor = (mode: ProviderMode) =>
    createRampAdapter(mode === 'live' ? live : test, contractContext('rampnetwork', mode), testPublicKeys);

  it.each(['live', 'test'] as const)('the published %s key is a secp256k1 SPKI key', (mode) => {
    const key = createPublicKey(RAMP_WEBHOOK_PUBLIC_KEYS[mode]);
    expect(key.asymmetricKeyType).toBe('ec');
    expect(key.asymmetricKeyDetails?.namedCurve).toBe('secp256k1');
  });

  it('accepts a signature made by openssl over the key-sorted body, whatever the order and spacing of the bytes sent', async () => {
    const body = purchaseEvent('RELEASED', 'RELEASED', order.walletAddress);
    const dir = mkdtempSync(join(tmpdir(), 'ramp-'));
    try {
      const keyFile = join(dir, 'key.pem');
      writeFileSync(keyFile, keyPairs.live.privateKey.export({ type: 'pkcs8', format: 'pem' }));
      const der = execFileSync('openssl', ['dgst', '-sha256', '-sign', keyFile], { input: sortedJson(body) });
      // Sent pretty-printed, keys in the order written above: only the parsed content is signed.
      const rawBody = Buffer.from(JSON.stringify(body, null, 2));
      const outcome = await adapterFor('live').verifyWebhook(rawBody, { 'x-body-signature': der.toString('base64') });
      expect(outcome.kind).toBe('event');
      expect(outcome.acknowledgement).toEqual({ statusCode: 200, contentType: 'text/plain; charset=utf-8', body: 'OK' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('picks the key by mode: the staging key in test mode, the production key in live mode', async () => {
    const body = purchaseEvent('RELEASED', 'RELEASED', order.walletAddress);
    const signedByStaging = rampWebhook(body, keyPairs.test.privateKey);
    await expect(adapterFor('test').verifyWebhook(signedByStaging.rawBody, signedByStaging.headers)).resolves.toMatchObject({
      kind: 'event',
    });
    await expect(adapterFor('live').verifyWebhook(signedByStaging.rawBody, signedByStaging.headers)).rejects.toBeInstanceOf(
      ProviderWebhookError,
    );
  });

  it("the registry's module trusts only Ramp's published keys", async () => {
    const webhook = rampWebhook(purchaseEvent('RELEASED', 'RELEASED', order.walletAddress), keyPairs.live.privateKey);
    const adapter = await rampnetwork.create(live, contractContext('rampnetwork', 'live'));
    await expect(adapter.verifyWebhook(webhook.rawBody, webhook.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
  });

  it('refuses a signature that is not DER, a body that is not JSON, and a repeated header', async () => {
    const adapter = adapterFor('live');
    const webhook = rampWebhook(purchaseEvent('RELEASED', 'RELEASED', order.walletAddress), keyPairs.live.privateKey);
    await expect(
      adapter.verifyWebhook(webhook.rawBody, { 'x-body-signature': Buffer.alloc(70, 7).toString('base64') }),
    ).rejects.toBeInstanceOf(ProviderWebhookError);
    await expect(adapter.verifyWebhook(Buffer.from('not json'), webhook.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    const signature = webhook.headers['x-body-signature'];
    await expect(adapter.verifyWebhook(webhook.rawBody, { 'x-body-signature': [signature, signature] })).rejects.toBeInstanceOf(
      ProviderWebhookError,
    );
  });

  it('ignores an authentic off-ramp sale', async () => {
    const sale = {
      id: '9393916e-c3c5-46c4-9132-18106a192637',
      type: 'CREATED',
      mode: 'OFFRAMP',
      payload: { id: '70b47a42', createdAt: '2026-11-25T11:00:00.000Z' },
    };
    const webhook = rampWebhook(sale, keyPairs.live.privateKey);
    await expect(adapterFor('live').verifyWebhook(webhook.rawBody, webhook.headers)).resolves.toMatchObject({ kind: 'ignored' });
  });
});

describe('rampnetwork purchase status mapping', () => {
  const wallet = sampleOrder('USD').walletAddress;

  it.each([
    ['CREATED', 'INITIALIZED', 'pending', 'INITIALIZED'],
    ['CREATED', 'PAYMENT_STARTED', 'pending', 'PAYMENT_STARTED'],
    ['CREATED', 'PAYMENT_IN_PROGRESS', 'pending', 'PAYMENT_IN_PROGRESS'],
    ['CREATED', 'PAYMENT_EXECUTED', 'pending', 'PAYMENT_EXECUTED'],
    ['CREATED', 'FIAT_SENT', 'pending', 'FIAT_SENT'],
    ['CREATED', 'FIAT_RECEIVED', 'pending', 'FIAT_RECEIVED'],
    ['CREATED', 'RELEASING', 'pending', 'RELEASING'],
    ['RELEASED', 'RELEASED', 'paid', 'RELEASED'],
    ['CREATED', 'PAYMENT_FAILED', 'declined', 'PAYMENT_FAILED'],
    ['CREATED', 'EXPIRED', 'failed', 'EXPIRED'],
    ['CREATED', 'CANCELLED', 'failed', 'CANCELLED'],
    ['RETURNED', 'RELEASED', 'failed', 'RETURNED'],
    ['ERROR', 'PAYMENT_FAILED', 'declined', 'PAYMENT_FAILED'],
  ])('%s with purchase status %s maps to %s', (type, purchaseStatus, status, rawStatus) => {
    const outcome = rampWebhookEvent(purchaseEvent(type, purchaseStatus, wallet));
    expect(outcome).toMatchObject({
      kind: 'event',
      event: {
        status,
        rawStatus,
        providerReference: '9q4bwbq4b8d4gjr',
        match: { walletAddress: wallet, providerReference: '9q4bwbq4b8d4gjr' },
      },
    });
  });

  it('reports where the purchase delivers, and RETURNED as a refund; the descriptor says Ramp documents the destination', () => {
    const released = rampWebhookEvent(purchaseEvent('RELEASED', 'RELEASED', wallet));
    expect(released).toMatchObject({ event: { destination: { address: wallet, network: 'MATIC', asset: 'USDC' } } });
    expect(released.kind === 'event' && released.event.refunded).toBeFalsy();
    expect(rampWebhookEvent(purchaseEvent('RETURNED', 'RELEASED', wallet))).toMatchObject({ event: { status: 'failed', refunded: true } });
    expect(rampnetwork.descriptor.reportsDestination).toBe(true);
  });

  it('ignores unknown event types, unknown purchase statuses and events without a purchase', () => {
    expect(rampWebhookEvent(purchaseEvent('PING', 'RELEASED', wallet)).kind).toBe('ignored');
    expect(rampWebhookEvent(purchaseEvent('CREATED', 'SOMETHING_NEW', wallet)).kind).toBe('ignored');
    expect(rampWebhookEvent({ type: 'CREATED' }).kind).toBe('ignored');
    expect(rampWebhookEvent([1, 2]).kind).toBe('ignored');
  });
});

describe('rampnetwork checkout URL', () => {
  it('preselects USDC on Polygon by card, passes the e-mail, return page and per-order webhook URL', async () => {
    const order = sampleOrder('USD');
    const context = contractContext('rampnetwork', 'live', { now: () => CONTRACT_NOW_MS });
    const { url } = redirectCheckout(
      await createRampAdapter(live, context, testPublicKeys).createCheckout(order, {
        idempotencyKey: order.paymentId,
        signal: new AbortController().signal,
      }),
    );
    const parsed = new URL(url);
    expect(parsed.origin).toBe('https://app.rampnetwork.com');
    expect(Object.fromEntries(parsed.searchParams)).toEqual({
      hostApiKey: live.HOST_API_KEY,
      hostAppName: 'Shop Pay',
      enabledFlows: 'ONRAMP',
      swapAsset: 'MATIC_USDC',
      userAddress: order.walletAddress,
      fiatCurrency: 'USD',
      fiatValue: '149.99',
      userEmailAddress: 'jane+test@shop.io',
      paymentMethodType: 'CARD',
      finalUrl: order.returnUrl,
      webhookStatusUrl: 'https://pay.example.org/webhooks/rampnetwork',
    });
  });

  it('uses the demo widget in test mode and leaves hostAppName out when not set', async () => {
    const order = sampleOrder('USD');
    const { url } = redirectCheckout(
      await createRampAdapter(test, contractContext('rampnetwork', 'test'), testPublicKeys).createCheckout(order, {
        idempotencyKey: order.paymentId,
        signal: new AbortController().signal,
      }),
    );
    const parsed = new URL(url);
    expect(parsed.origin).toBe('https://app.demo.rampnetwork.com');
    expect(parsed.searchParams.has('hostAppName')).toBe(false);
  });
});

// Purchase webhooks of https://docs.rampnetwork.com/webhooks.
describe('ramp decline kinds', () => {
  const kind = (type: string, status: string) => {
    const read = rampWebhookEvent({
      type,
      purchase: { id: 'p7', status, receiverAddress: `0x${'3'.repeat(40)}`, asset: { symbol: 'MATIC_USDC', chain: 'MATIC' } },
    });
    return read.kind === 'event' ? read.event.declineKind : read.why;
  };
  it('EXPIRED is abandoned; PAYMENT_FAILED, CANCELLED and RETURNED other; RELEASED none', () => {
    expect(kind('CREATED', 'EXPIRED')).toBe('abandoned');
    expect(kind('CREATED', 'PAYMENT_FAILED')).toBe('other');
    expect(kind('CREATED', 'CANCELLED')).toBe('other');
    expect(kind('RETURNED', 'RELEASED')).toBe('other');
    expect(kind('RELEASED', 'RELEASED')).toBeUndefined();
  });
});
