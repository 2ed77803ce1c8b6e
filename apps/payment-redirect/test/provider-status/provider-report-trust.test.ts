import { createHmac, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { issuePaymentKey, sealAddressIn, type EvmAddress } from '@gateway/domain';
import { ProviderStatusRepository } from '@gateway/db/payment-redirect';
import { providerEnvName, type ProviderRegistry } from '@gateway/providers';
import { seedPayment, sqlExpression } from '@gateway/app-testkit';
import { ProviderStatusService } from '../../src/services/provider-status/provider-status-service';
import { createRampAdapter } from '../../../../packages/providers/src/adapters/rampnetwork/rampnetwork-adapter';
import type { PaymentRedirectConfig } from '../../src/config';
import { startCoinbaseFake, type CoinbaseFake } from '../../../../packages/providers/test/support/coinbase-fake';
import {
  FAKE_API_KEY,
  FAKE_API_SECRET,
  startTransakFake,
  type TransakFake,
} from '../../../../packages/providers/test/support/transak-fake';
import { FAKE_TRANSFI, startTransfiFake, type TransfiFake } from '../../../../packages/providers/test/support/transfi-fake';
import { startWertFake, type WertFake } from '../../../../packages/providers/test/support/wert-fake';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';

// Issue 35: reports that are not about the payment's own order, or that come again late. Wert's
// click_id and Coinbase's partnerUserRef are unsigned URL parameters: a stranger's own order can carry
// a victim's payment id. TransFi and Transak sign no time: an old webhook can be sent again. The
// providers' local fakes answer the look-ups; the webhooks are signed as each provider signs them.

const STRANGER = '0x9999999999999999999999999999999999999999';
const STRANGER_TX = `0x${'ab'.repeat(32)}`;
const TRANSFI_SECRET = 'whk_9f2c4e7a1b3d5f8a0c2e4b6d8f1a3c5e';
const cdpKey = generateKeyPairSync('ed25519');
const cdpJwk = cdpKey.privateKey.export({ format: 'jwk' });
const CDP_KEY_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

let wertFake: WertFake;
let coinbaseFake: CoinbaseFake;
let transfiFake: TransfiFake;
let transakFake: TransakFake;
let app: FastifyInstance;
let config: PaymentRedirectConfig;
const fixture = paymentRedirectFixture('provider_report_trust', { SANDBOX_CHECKOUT: 'off' });

function env(id: string, values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [providerEnvName(id, name), value]));
}

beforeAll(async () => {
  wertFake = await startWertFake();
  coinbaseFake = await startCoinbaseFake({ keyId: CDP_KEY_ID, publicKey: cdpKey.publicKey, algorithm: 'EdDSA' });
  transfiFake = await startTransfiFake();
  transakFake = await startTransakFake();
  config = fixture.config({
    ...env('wert', { PARTNER_ID: '01GJMAVBKQYNKGCFSPE4QTN4AC', MODE: 'test', API_KEY: wertFake.apiKey, API_URL: wertFake.url }),
    ...env('coinbase', {
      KEY_ID: CDP_KEY_ID,
      KEY_SECRET: Buffer.concat([Buffer.from(cdpJwk.d!, 'base64url'), Buffer.from(cdpJwk.x!, 'base64url')]).toString('base64'),
      MODE: 'test',
      API_URL: coinbaseFake.url,
    }),
    ...env('transfi', {
      USERNAME: FAKE_TRANSFI.username,
      PASSWORD: FAKE_TRANSFI.password,
      MID: FAKE_TRANSFI.mid,
      WEBHOOK_SECRET: TRANSFI_SECRET,
      MODE: 'test',
      API_URL: transfiFake.url,
    }),
    ...env('transak', {
      API_KEY: FAKE_API_KEY,
      API_SECRET: FAKE_API_SECRET,
      MODE: 'test',
      API_URL: transakFake.url,
      GATEWAY_URL: transakFake.url,
    }),
  });
  app = await fixture.build(config);
});

afterAll(async () => {
  await Promise.all([wertFake.close(), coinbaseFake.close(), transfiFake.close(), transakFake.close()]);
});

let walletIndex = 0;
/** A customer's wallet and a payment of `provider` into it, its checkout recorded (as Process Payment leaves it). */
async function payment(provider: string, providerReference: string | null = null): Promise<{ id: string; wallet: EvmAddress }> {
  walletIndex += 1;
  const wallet = `0x${walletIndex.toString(16).padStart(40, 'd')}` as EvmAddress;
  const { walletId } = await fixture.insertWallet({
    temporary: wallet,
    addressIn: sealAddressIn(wallet, config.keys),
    callbackUrl: `https://shop.io/ipn?order=${walletIndex}`,
    hdIndex: BigInt(1000 + walletIndex),
  });
  const id = randomUUID();
  const { key, hash } = issuePaymentKey();
  await seedPayment(fixture.db.pool, {
    id,
    walletId,
    amount: 80,
    provider,
    email: 'jane@shop.io',
    status: 'redirected',
    checkoutUrl: `https://checkout.example/${id}`,
    providerReference,
    statusPollDueAt: sqlExpression('now()'),
    customerKeyHash: hash,
  });
  keys.set(id, key);
  return { id, wallet };
}

/** Each payment's key, as the browser that started it holds it: only that browser is offered the second chance. */
const keys = new Map<string, string>();
const receiptAsTheCustomer = (id: string) => app.inject({ url: `/payment/${id}`, headers: { cookie: `payment_key=${keys.get(id)}` } });

async function providerState(id: string) {
  const { rows } = await fixture.db.pool.query<{
    provider_status: string | null;
    provider_reference: string | null;
    provider_tx_hash: string | null;
  }>('SELECT provider_status, provider_reference, provider_tx_hash FROM payments WHERE id = $1', [id]);
  return rows[0]!;
}

describe('a relabelled provider order is not trusted', () => {
  it("Wert: a stranger's order carrying the victim's click_id, delivering elsewhere, does not mark the victim's payment", async () => {
    const victim = await payment('wert');
    wertFake.addOrder({
      order_id: 'wert-stranger',
      click_id: victim.id,
      status: 'success',
      address: STRANGER,
      commodity: 'USDC',
      network: 'polygon',
      tx_id: STRANGER_TX,
      created_at: '2026-11-28T08:00:00Z',
    });
    await app.askProvider(victim.id);
    // Before the fix: paid, with the stranger's order id and transaction (which closed the second chance and took the credit).
    expect(await providerState(victim.id)).toEqual({ provider_status: null, provider_reference: null, provider_tx_hash: null });

    // The victim's own order, older than the stranger's, is the one followed.
    const ownTx = `0x${'cd'.repeat(32)}`;
    wertFake.addOrder({
      order_id: 'wert-own',
      click_id: victim.id,
      status: 'success',
      address: victim.wallet,
      commodity: 'USDC',
      network: 'polygon',
      tx_id: ownTx,
      created_at: '2026-11-28T07:00:00Z',
    });
    await fixture.db.pool.query('UPDATE payments SET status_poll_due_at = now() WHERE id = $1', [victim.id]);
    await app.askProvider(victim.id);
    expect(await providerState(victim.id)).toEqual({ provider_status: 'paid', provider_reference: 'wert-own', provider_tx_hash: ownTx });
  });

  it("Coinbase: a stranger's transaction under the victim's partnerUserRef, delivering elsewhere, does not mark the victim's payment", async () => {
    const victim = await payment('coinbase');
    coinbaseFake.transactions.set(victim.id, [
      {
        status: 'ONRAMP_TRANSACTION_STATUS_SUCCESS',
        transaction_id: 'cb-stranger',
        wallet_address: STRANGER,
        purchase_network: 'polygon',
        purchase_currency: 'USDC',
        tx_hash: STRANGER_TX,
      },
    ]);
    await app.askProvider(victim.id);
    expect(await providerState(victim.id)).toEqual({ provider_status: null, provider_reference: null, provider_tx_hash: null });

    // One that delivers to the victim's wallet on another network is not the victim's either.
    coinbaseFake.transactions.set(victim.id, [
      {
        status: 'ONRAMP_TRANSACTION_STATUS_SUCCESS',
        transaction_id: 'cb-base',
        wallet_address: victim.wallet,
        purchase_network: 'base',
        purchase_currency: 'USDC',
        tx_hash: STRANGER_TX,
      },
    ]);
    await fixture.db.pool.query('UPDATE payments SET status_poll_due_at = now() WHERE id = $1', [victim.id]);
    await app.askProvider(victim.id);
    expect((await providerState(victim.id)).provider_status).toBeNull();
  });
});

/** A TransFi order webhook, signed with the webhook secret (X-Transfi-Hmac-Hash). */
function transfiWebhook(paymentWallet: string, orderId: string, status: string) {
  const payload = JSON.stringify({
    entityType: 'order',
    entityId: orderId,
    status,
    order: { orderId, type: 'buy', walletAddress: paymentWallet, cryptoTicker: 'USDCPOLYGON' },
  });
  return app.inject({
    method: 'POST',
    url: '/webhooks/transfi',
    payload,
    headers: {
      'content-type': 'application/json',
      'x-transfi-hmac-hash': createHmac('sha256', TRANSFI_SECRET).update(payload).digest('hex'),
    },
  });
}

describe('a late or replayed decline after the charge', () => {
  it('TransFi: a replayed fund_failed after fund_settled neither reopens the second chance nor says "Nothing was charged"', async () => {
    const customer = await payment('transfi', 'OR-charged-1');
    expect((await transfiWebhook(customer.wallet, 'OR-charged-1', 'fund_failed')).headers['x-webhook-outcome']).toBe('updated');
    // Declined: the customer's own browser is offered the other providers (what the replay must not bring back).
    expect((await receiptAsTheCustomer(customer.id)).body).toContain(`/payment/${customer.id}/retry`);
    expect((await transfiWebhook(customer.wallet, 'OR-charged-1', 'fund_settled')).headers['x-webhook-outcome']).toBe('updated');
    const replay = await transfiWebhook(customer.wallet, 'OR-charged-1', 'fund_failed');
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['x-webhook-outcome']).toBe('unchanged');
    expect((await providerState(customer.id)).provider_status).toBe('charged');
    const page = await receiptAsTheCustomer(customer.id);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('Nothing was charged');
    expect(page.body).not.toContain(`/payment/${customer.id}/retry`);
    expect(page.body).toContain('charged your card');
  });

  it('TransFi: the same event twice is recorded once, by its order and status in PostgreSQL', async () => {
    const customer = await payment('transfi', 'OR-replay-1');
    expect((await transfiWebhook(customer.wallet, 'OR-replay-1', 'fund_failed')).headers['x-webhook-outcome']).toBe('updated');
    expect((await transfiWebhook(customer.wallet, 'OR-replay-1', 'fund_failed')).headers['x-webhook-outcome']).toBe('unchanged');
    const { rows } = await fixture.db.pool.query('SELECT event_key FROM provider_report_events WHERE payment_id = $1', [customer.id]);
    expect(rows).toEqual([{ event_key: 'order:OR-replay-1:fund_failed' }]);
  });

  it('Transak: a replayed event is ignored the second time, and a decline never moves charged backwards', async () => {
    const wallet = '0x7777777777777777777777777777777777777777' as EvmAddress;
    const addressIn = sealAddressIn(wallet, config.keys);
    await fixture.insertWallet({ temporary: wallet, addressIn, callbackUrl: 'https://shop.io/ipn?order=transak', hdIndex: 7777n });
    // A checkout first: Transak signs its webhooks with the partner access token the checkout minted.
    const checkout = await app.inject({
      url: '/process-payment.php',
      query: { address: addressIn, amount: '75.00', provider: 'transak', email: 'jane@shop.io', currency: 'USD' },
      headers: { accept: 'application/json' },
    });
    expect(checkout.statusCode).toBe(200);
    const paymentId = checkout.json().payment_id as string;
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const webhook = (status: string) => {
      const order = {
        id: 'tk-order-1',
        partnerOrderId: paymentId,
        status,
        walletAddress: wallet,
        network: 'polygon',
        cryptoCurrency: 'USDC',
      };
      const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ webhookData: order })}`;
      const jwt = `${unsigned}.${createHmac('sha256', transakFake.currentToken!).update(unsigned).digest('base64url')}`;
      return app.inject({ method: 'POST', url: '/webhooks/transak', payload: { data: jwt } });
    };
    const first = await webhook('PROCESSING');
    expect([first.statusCode, first.body]).toEqual([200, '{"received":true}']);
    expect(first.headers['x-webhook-outcome']).toBe('updated');
    expect((await webhook('PROCESSING')).headers['x-webhook-outcome']).toBe('unchanged');
    expect((await webhook('FAILED')).headers['x-webhook-outcome']).toBe('updated');
    expect((await webhook('FAILED')).headers['x-webhook-outcome']).toBe('unchanged');
    // A pending status after the end: a replay of an older event, refused.
    expect((await webhook('PROCESSING')).headers['x-webhook-outcome']).toBe('unchanged');
    expect((await providerState(paymentId)).provider_status).toBe('failed');
  });
});

describe('Ramp: purchases found by the wallet alone', () => {
  // Ramp's private keys sign nothing for us: its adapter trusts a key pair of this test, as Ramp's own tests do.
  const rampKeys = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
  const publicPem = rampKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  let service: ProviderStatusService;

  beforeAll(() => {
    const adapter = createRampAdapter(
      { HOST_API_KEY: 'demo_host_api_key_1' },
      {
        mode: 'test',
        webhookUrl: 'https://pay.example/webhooks/rampnetwork',
        http: undefined as never,
        tokens: undefined as never,
        now: Date.now,
      },
      { live: publicPem, test: publicPem },
    );
    const registry = {
      adapter: (id: string) => (id === 'rampnetwork' ? adapter : undefined),
      webhookReceiver: (endpoint: string) => (endpoint === 'rampnetwork' ? { adapter, providers: ['rampnetwork'] } : undefined),
    } as unknown as ProviderRegistry;
    const pool = fixture.db.appPool('payment-redirect');
    service = new ProviderStatusService({
      providers: registry,
      statuses: new ProviderStatusRepository(pool),
      queue: app.providerStatusQueue,
      schedule: { firstDelayMs: 60_000, maxDelayMs: 600_000, maxAgeMs: 3_600_000 },
      metrics: { webhook: () => undefined, poll: () => undefined, statusReached: () => undefined, declineRecorded: () => undefined },
      log: app.log,
    });
  });

  // What Ramp signs: the body re-serialised with its keys sorted (fast-json-stable-stringify).
  const sortedJson = (value: unknown): string =>
    value !== null && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((key) => `${JSON.stringify(key)}:${sortedJson((value as Record<string, unknown>)[key])}`)
          .join(',')}}`
      : JSON.stringify(value);
  const rampWebhook = (type: string, purchase: Record<string, unknown>) => {
    const body = { type, purchase };
    const signature = sign('sha256', Buffer.from(sortedJson(body)), { key: rampKeys.privateKey, dsaEncoding: 'der' }).toString('base64');
    return service.receiveWebhook('rampnetwork', Buffer.from(JSON.stringify(body)), { 'x-body-signature': signature });
  };
  const asset = { symbol: 'MATIC_USDC', chain: 'MATIC' };

  it("a stranger's purchase to the customer's wallet, created first and abandoned, does not mark the payment failed", async () => {
    const customer = await payment('rampnetwork');
    await rampWebhook('CREATED', { id: 'ramp-stranger', status: 'INITIALIZED', receiverAddress: customer.wallet, asset });
    await rampWebhook('CREATED', { id: 'ramp-own', status: 'INITIALIZED', receiverAddress: customer.wallet, asset });
    expect(
      await rampWebhook('RETURNED', { id: 'ramp-stranger', status: 'EXPIRED', receiverAddress: customer.wallet, asset }),
    ).toMatchObject({
      kind: 'accepted',
      outcome: 'unknown_payment',
    });
    expect((await providerState(customer.id)).provider_status).not.toBe('failed');
    // The customer's own purchase, released, is recorded and followed from then on.
    expect(await rampWebhook('RELEASED', { id: 'ramp-own', status: 'RELEASED', receiverAddress: customer.wallet, asset })).toMatchObject({
      outcome: 'updated',
    });
    expect(await providerState(customer.id)).toEqual({ provider_status: 'paid', provider_reference: 'ramp-own', provider_tx_hash: null });
  });
});
