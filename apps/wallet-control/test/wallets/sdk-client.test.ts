import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { type CallbackPublicKey, GatewayClient, GatewayRequestError, signCallback, verifyCallbackSignature } from '@usdc-card-gateway/sdk';
import { consentingOwner as owner } from '../support/affiliate-consent';
import { walletControlFixture } from '../support/wallet-control-fixture';

// The merchant SDK's client over real HTTP against wallet-control, as a shop uses it: what the
// SDK sends is what the API reads (each value encoded once), and what the API answers is what the
// SDK hands back, errors included.
const fixture = walletControlFixture('sdk_client');
let app: FastifyInstance;
let client: GatewayClient;
const affiliate = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const other = '0x52908400098527886E0F7030069857D2E4169EE7';
const signing = generateKeyPairSync('ed25519');

beforeAll(async () => {
  app = await fixture.build(fixture.config({ CALLBACK_PUBLIC_KEYS: `k1:${signing.publicKey.export({ format: 'pem', type: 'spki' })}` }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  client = new GatewayClient({ baseUrl, paymentUrl: 'https://pay.example.com' });
});

it('creates a wallet whose callback keeps its query, and answers the same wallet again', async () => {
  const callbackUrl = 'https://shop.io/ipn/sdk?order_id=1&note=a%20b+c%2F';
  const wallet = await client.createWallet({ payoutAddress: owner.address, callbackUrl });
  expect(wallet.callbackUrl).toBe(callbackUrl);
  expect(wallet.polygonAddressIn).toMatch(/^0x[0-9a-fA-F]{40}$/);
  expect(await client.createWallet({ payoutAddress: owner.address, callbackUrl })).toEqual(wallet);
  const link = new URL(
    client.paymentLink({ addressIn: wallet.addressIn, amount: '10', provider: 'moonpay', email: 'a@b.io', currency: 'USD' }),
  );
  expect(link.searchParams.get('address')).toBe(wallet.addressIn);
});

it("answers the API's refusals as GatewayRequestError with the code and the parameter to fix", async () => {
  const callbackUrl = 'https://shop.io/ipn/sdk-owned?order_id=1';
  await client.createWallet({ payoutAddress: owner.address, callbackUrl });
  const refusal = await client.createWallet({ payoutAddress: other, callbackUrl }).catch((error: unknown) => error);
  expect(refusal).toBeInstanceOf(GatewayRequestError);
  expect(refusal).toMatchObject({ status: 409, code: 'callback_registered_elsewhere' });
  await expect(client.createWallet({ payoutAddress: '0x123', callbackUrl })).rejects.toMatchObject({
    status: 400,
    code: 'invalid_parameter',
    param: 'address',
  });
});

it("affiliate wallets with the payout owner's consent signed by the SDK; without it, 403", async () => {
  const input = { payoutAddress: owner.address, affiliateAddress: affiliate };
  await expect(client.createAffiliateWallet({ ...input, callbackUrl: 'https://shop.io/ipn/sdk-aff-1?o=1' })).rejects.toMatchObject({
    status: 403,
    code: 'affiliate_consent_required',
  });
  const plain = await client.createAffiliateWallet({
    ...input,
    callbackUrl: 'https://shop.io/ipn/sdk-aff-2?o=1',
    consent: { signer: owner },
  });
  expect(plain.ipnToken).toHaveLength(32);
  const custom = await client.createCustomAffiliateWallet({
    ...input,
    callbackUrl: 'https://shop.io/ipn/sdk-aff-3?o=1',
    merchantFee: '0.98',
    affiliateFee: '0.01',
    consent: { signer: owner },
  });
  expect(custom.addressIn).not.toBe(plain.addressIn);
});

it("fetches the callback keys that verify the gateway's signatures", async () => {
  const keys = await client.callbackPublicKeys();
  expect(keys.length).toBeGreaterThan(0);
  const url = `https://shop.io/ipn?x=1&address_out=${other}`;
  const header = signCallback({ url, deliveryId: 'd1', privateKeys: [{ key: signing.privateKey }] });
  const verify = (publicKeys: readonly CallbackPublicKey[]) =>
    verifyCallbackSignature({ url, header, deliveryId: 'd1', publicKeys, payoutAddress: other, expectedAmount: false });
  expect(verify(keys)).toMatchObject({ ok: true, deliveryId: 'd1', addressOut: other });
  expect(verify([generateKeyPairSync('ed25519').publicKey])).toEqual({ ok: false, reason: 'no_matching_signature' });
});

it('converts and reads the payment status of a new wallet', async () => {
  expect(await client.convert({ value: '49.9', from: 'eur' })).toEqual({
    valueCoin: expect.stringMatching(/^\d+\.\d\d$/),
    exchangeRate: expect.any(String),
  });
  const wallet = await client.createWallet({ payoutAddress: owner.address, callbackUrl: 'https://shop.io/ipn/sdk-status?o=1' });
  const status = await client.paymentStatus(wallet.ipnToken);
  expect(status).toMatchObject({ status: 'unpaid', value_coin: '0', deposits: [], payments: [], payout_address: owner.address });
  await expect(client.paymentStatus('x'.repeat(32))).rejects.toMatchObject({ status: 404, code: 'not_found' });
});

it("sends the merchant's own order tolerance, and Check Payment Status answers the order it judges", async () => {
  const wallet = await client.createWallet({
    payoutAddress: owner.address,
    callbackUrl: 'https://shop.io/ipn/sdk-tolerance?o=1',
    orderToleranceBps: 25,
  });
  const { rows } = await fixture.db.pool.query('SELECT order_tolerance_bps FROM wallets WHERE polygon_address = $1', [
    wallet.polygonAddressIn.toLowerCase(),
  ]);
  expect(rows[0].order_tolerance_bps).toBe(25);
  const status = await client.paymentStatus(wallet.ipnToken);
  expect(status).toMatchObject({ status: 'unpaid', order: { total_coin: '0', state: null }, callback_log: { delivery_count: 0 } });
  await expect(
    client.createWallet({ payoutAddress: owner.address, callbackUrl: 'https://shop.io/ipn/sdk-tolerance?o=2', orderToleranceBps: 9_000 }),
  ).rejects.toMatchObject({
    status: 400,
    param: 'order_tolerance_bps',
  });
});
