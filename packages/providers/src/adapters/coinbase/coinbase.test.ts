import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { CONTRACT_NOW_MS, sampleOrder, readingOf } from '../../../test/support/adapter-contract';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { startCoinbaseFake } from '../../../test/support/coinbase-fake';
import { describeSessionAdapter } from '../../../test/support/session-adapter-suite';
import { ProviderWebhookError, type ProviderAdapter } from '../../provider-contract';
import { COINBASE_TOKEN_LIFETIME_MS, COINBASE_TRANSACTION_STATUS, coinbase } from './coinbase-adapter';
import { importCdpKey } from './coinbase-key';

// A CDP Ed25519 key as the Portal gives it (base64 of seed ‖ public key), and a legacy ECDSA key (SEC1 PEM).
const ed = generateKeyPairSync('ed25519');
const edJwk = ed.privateKey.export({ format: 'jwk' });
const ED_SECRET = Buffer.concat([Buffer.from(edJwk.d!, 'base64url'), Buffer.from(edJwk.x!, 'base64url')]).toString('base64');
const ED_KEY_ID = '2636c881-b44e-4263-b05d-fb10a5ad1836';
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const EC_SECRET = ec.privateKey.export({ type: 'sec1', format: 'pem' }).toString();
const EC_KEY_ID = 'organizations/4f1b0f36-0000-4000-8000-000000000001/apiKeys/9a7c2f5d-0000-4000-8000-000000000002';

const settings = (apiUrl: string, secret = ED_SECRET, keyId = ED_KEY_ID) => ({ KEY_ID: keyId, KEY_SECRET: secret, API_URL: apiUrl });

const kit = describeSessionAdapter({
  module: coinbase,
  startFake: () => startCoinbaseFake({ keyId: ED_KEY_ID, publicKey: ed.publicKey, algorithm: 'EdDSA' }, () => CONTRACT_NOW_MS),
  settings: (fake) => settings(fake.url),
  modes: ['test', 'live'],
  contract: (fake) => ({
    // The onramp URL carries the amount, currency and our reference; the wallet is inside the session token.
    readCheckout: (url) => {
      expect(url.pathname).toBe('/buy/select-asset');
      const session = fake().sessionOf(url.searchParams.get('sessionToken') ?? '') as { addresses: { address: string }[] };
      return readingOf({
        wallet: session.addresses[0]!.address,
        amount: url.searchParams.get('presetFiatAmount'),
        currency: url.searchParams.get('fiatCurrency'),
        reference: url.searchParams.get('partnerUserRef'),
      });
    },
  }),
  secret: () => ED_SECRET,
  sends: 'once',
  malformedAmount: false,
  malformed: { 'no token': '{"channel_id":""}' },
  defaultHosts: { live: 'https://api.developer.coinbase.com/onramp/v1/token' },
  status: {
    error: /Coinbase/,
    failures: [['transactions not a list', { status: 200, body: '{"transactions":{}}' }]],
  },
});
const { build } = kit;
const open = async (adapter: ProviderAdapter) => redirectCheckout(await kit.open(sampleOrder('USD'), { adapter }));
const tokenCalls = () => kit.fake.requests.filter((request) => request.method === 'POST');
const lookups = () => kit.fake.requests.filter((request) => request.method === 'GET');

describe('coinbase session token against a local CDP API', () => {
  it('mints a token for the wallet on polygon, USDC, the customer IP; the onramp URL carries it, single use, 5 minutes', async () => {
    const order = sampleOrder('USD');
    const created = await open(await build('live'));
    const [request] = tokenCalls();
    expect(JSON.parse(request!.body)).toEqual({
      addresses: [{ address: order.walletAddress, blockchains: ['polygon'] }],
      assets: ['USDC'],
      clientIp: '203.0.113.7',
    });
    const url = new URL(created.url);
    expect(url.origin).toBe('https://pay.coinbase.com');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      sessionToken: expect.stringMatching(/^[\w-]{20,}$/),
      defaultNetwork: 'polygon',
      defaultAsset: 'USDC',
      presetFiatAmount: '149.99',
      fiatCurrency: 'USD',
      defaultPaymentMethod: 'CARD',
      partnerUserRef: order.paymentId,
      redirectUrl: order.returnUrl,
    });
    expect(kit.fake.sessionOf(url.searchParams.get('sessionToken')!)).toBeDefined();
    expect(created).toMatchObject({ singleUse: true, expiresAt: CONTRACT_NOW_MS + COINBASE_TOKEN_LIFETIME_MS });
  });

  it('test mode opens the documented sandbox (pay-sandbox.coinbase.com, test card 4242…), never the live onramp', async () => {
    const url = new URL((await open(await build('test'))).url);
    expect(url.origin).toBe('https://pay-sandbox.coinbase.com');
    expect(url.searchParams.get('sessionToken')).toMatch(/^[\w-]{20,}$/);
    expect(coinbase.descriptor.hosts).toEqual({ live: 'https://pay.coinbase.com', test: 'https://pay-sandbox.coinbase.com' });
  });

  it('is offered only in the currencies whose preset fiat amount Coinbase honours: USD, CAD, GBP, EUR', () => {
    expect(coinbase.descriptor.currencies).toEqual(['USD', 'CAD', 'GBP', 'EUR']);
  });

  it('signs EdDSA with an Ed25519 key and ES256 with a legacy EC key; each JWT verifies with node:crypto', async () => {
    await open(await build());
    const [h, c, s] = String(tokenCalls()[0]!.headers.authorization).replace('Bearer ', '').split('.');
    expect(verify(null, Buffer.from(`${h}.${c}`), ed.publicKey, Buffer.from(s!, 'base64url'))).toBe(true);
    expect(tokenCalls()[0]!.jwt).toMatchObject({
      header: { alg: 'EdDSA', kid: ED_KEY_ID, typ: 'JWT' },
      claims: {
        sub: ED_KEY_ID,
        iss: 'cdp',
        aud: ['cdp_service'],
        uris: [`POST ${new URL(kit.fake.url).host}/onramp/v1/token`],
        nbf: CONTRACT_NOW_MS / 1000,
        exp: CONTRACT_NOW_MS / 1000 + 120,
      },
    });
    kit.fake.expected = { keyId: EC_KEY_ID, publicKey: ec.publicKey, algorithm: 'ES256' };
    await open(await build('test', settings(kit.fake.url, EC_SECRET, EC_KEY_ID)));
    const [eh, epayload, es] = String(tokenCalls()[1]!.headers.authorization).replace('Bearer ', '').split('.');
    expect(
      verify('sha256', Buffer.from(`${eh}.${epayload}`), { key: ec.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(es!, 'base64url')),
    ).toBe(true);
    expect(tokenCalls()[1]!.jwt?.header).toMatchObject({ alg: 'ES256', kid: EC_KEY_ID });
    // Two JWTs never share a nonce.
    expect(tokenCalls()[0]!.jwt!.header.nonce).not.toBe(tokenCalls()[1]!.jwt!.header.nonce);
  });

  it("refuses at boot a key of another kind, or an Ed25519 secret whose public half is not its seed's", () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => importCdpKey(rsa)).toThrow(/neither/);
    expect(() => importCdpKey('c2hvcnQ=')).toThrow(/neither/);
    const other = createPublicKey(generateKeyPairSync('ed25519').privateKey).export({ format: 'jwk' }).x!;
    const mismatched = Buffer.concat([Buffer.from(edJwk.d!, 'base64url'), Buffer.from(other, 'base64url')]).toString('base64');
    expect(() => importCdpKey(mismatched)).toThrow(/public half/);
    expect(importCdpKey(EC_SECRET.replace(/\n/g, '\\n')).algorithm).toBe('ES256');
  });

  it('receives no webhooks: any body is refused', async () => {
    await expect((await build()).verifyWebhook(Buffer.from('{}'), {})).rejects.toBeInstanceOf(ProviderWebhookError);
  });
});

describe('coinbase transaction status', () => {
  const order = sampleOrder('USD');
  const transaction = (status: string, txHash = '') => ({
    status,
    purchase_currency: 'USDC',
    purchase_network: 'polygon',
    purchase_amount: { value: '143.21', currency: 'USDC' },
    payment_total: { value: '149.99', currency: 'USD' },
    tx_hash: txHash,
    created_at: '2026-11-25T12:01:00Z',
    transaction_id: '1f087a54-ff1f-62e8-9f85-aa77ac0499a5',
    wallet_address: order.walletAddress,
    partner_user_ref: order.paymentId,
  });

  it.each(Object.entries(COINBASE_TRANSACTION_STATUS))('%s of the newest transaction by partnerUserRef is %s', async (status, mapped) => {
    const hash = `0x${'ab'.repeat(32)}`;
    kit.fake.transactions.set(order.paymentId, [
      transaction(status, mapped === 'paid' ? hash : ''),
      transaction('ONRAMP_TRANSACTION_STATUS_FAILED'),
    ]);
    const event = await (await build()).status!({ paymentId: order.paymentId }, { signal: AbortSignal.timeout(3000) });
    expect(event).toMatchObject({
      status: mapped,
      rawStatus: status,
      match: { paymentId: order.paymentId, providerReference: '1f087a54-ff1f-62e8-9f85-aa77ac0499a5' },
      destination: { address: order.walletAddress, network: 'polygon', asset: 'USDC' },
    });
    expect(event?.txHash).toBe(mapped === 'paid' ? hash : undefined);
    expect(lookups()[0]!.path).toBe(`/onramp/v1/buy/user/${order.paymentId}/transactions?page_size=10`);
    expect(lookups()[0]!.jwt?.claims.uris).toEqual([
      `GET ${new URL(kit.fake.url).host}/onramp/v1/buy/user/${order.paymentId}/transactions`,
    ]);
  });

  it("a stranger's newer transaction under our partnerUserRef does not hide ours: the pinned one, else the newest to the wallet", async () => {
    const stranger = {
      ...transaction('ONRAMP_TRANSACTION_STATUS_FAILED'),
      transaction_id: 'stranger',
      wallet_address: `0x${'9'.repeat(40)}`,
    };
    kit.fake.transactions.set(order.paymentId, [stranger, transaction('ONRAMP_TRANSACTION_STATUS_SUCCESS')]);
    const adapter = await build();
    const read = (extra: object) => adapter.status!({ paymentId: order.paymentId, ...extra }, { signal: AbortSignal.timeout(3000) });
    await expect(read({ walletAddress: order.walletAddress.toLowerCase() })).resolves.toMatchObject({ status: 'paid' });
    await expect(read({ providerReference: '1f087a54-ff1f-62e8-9f85-aa77ac0499a5' })).resolves.toMatchObject({ status: 'paid' });
    await expect(read({ providerReference: 'gone' })).resolves.toBeNull();
    await expect(read({})).resolves.toMatchObject({ providerReference: 'stranger', destination: { address: stranger.wallet_address } });
  });

  it('a failed transaction is the decline kind other (its failure_reason says only buy or send failed); a success none', async () => {
    const adapter = await build();
    const read = () => adapter.status!({ paymentId: order.paymentId }, { signal: AbortSignal.timeout(3000) });
    kit.fake.transactions.set(order.paymentId, [
      { ...transaction('ONRAMP_TRANSACTION_STATUS_FAILED'), failure_reason: 'FAILURE_REASON_BUY_FAILED' },
    ]);
    await expect(read()).resolves.toMatchObject({ status: 'failed', declineKind: 'other' });
    kit.fake.transactions.set(order.paymentId, [transaction('ONRAMP_TRANSACTION_STATUS_SUCCESS', `0x${'ab'.repeat(32)}`)]);
    expect((await read())?.declineKind).toBeUndefined();
  });

  it('null while Coinbase has no transaction, or one in a status it does not document', async () => {
    const adapter = await build();
    const signal = AbortSignal.timeout(3000);
    expect(await adapter.status!({ paymentId: order.paymentId }, { signal })).toBeNull();
    kit.fake.transactions.set(order.paymentId, [transaction('ONRAMP_TRANSACTION_STATUS_SOMEDAY')]);
    expect(await adapter.status!({ paymentId: order.paymentId }, { signal })).toBeNull();
  });
});
