import type { FastifyInstance } from 'fastify';
import { createTestClient, http } from 'viem';
import { defineLocalChain } from '@gateway/chain';
import { startAnvil, type RunningAnvil, waitFor } from '@gateway/testkit';
import { createTestDatabase, type TestDatabase } from '@gateway/app-testkit';
import { buildSandboxProviderApp } from '../src/app';
import { loadSandboxProviderConfig, type SandboxProviderConfig } from '../src/config';
import { createFunderWallet, type FunderWallet, type SignedTransfer } from '../src/services/funder-wallet';
import { SandboxOrderRepository } from '../src/services/order-repository';
import {
  deployFundedToken,
  freshAddress,
  newSecret,
  returnedTo,
  sandboxEnv,
  signedLink,
  startWebhookReceiver,
  usdcReader,
  type SignedLink,
} from './sandbox-fixture';

const NET_USDC_FOR_49_99_EUR = 53_521_901n;

let anvil: RunningAnvil;
let db: TestDatabase;
let config: SandboxProviderConfig;
let funder: FunderWallet;
let orders: SandboxOrderRepository;
let webhooks: Awaited<ReturnType<typeof startWebhookReceiver>>;
let balanceOf: ReturnType<typeof usdcReader>;
const apps: FastifyInstance[] = [];
const secret = newSecret();

const start = async (receiptTimeoutMs?: number) => {
  const app = await buildSandboxProviderApp({ config, pool: db.pool, logger: false, receiptTimeoutMs });
  apps.push(app);
  return app;
};

/** What a crash right after "store the signed transfer" leaves behind: a row with a transfer nobody broadcast. */
async function interruptedOrder(link: SignedLink): Promise<SignedTransfer> {
  await orders.claim({
    paymentId: link.paymentId,
    provider: 'moonpay',
    walletAddress: link.address,
    fiatAmount: '49.99',
    currency: 'EUR',
    usdcAmount: NET_USDC_FOR_49_99_EUR,
  });
  const signed = await funder.signTransfer(link.address, NET_USDC_FOR_49_99_EUR);
  expect(await orders.recordSignedTransfer(link.paymentId, signed, null)).toBe(true);
  return signed;
}

const postForm = (app: FastifyInstance, fields: Record<string, string>) =>
  app.inject({
    method: 'POST',
    url: '/checkout',
    payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

const row = async (paymentId: string) =>
  (await db.pool.query('SELECT status, tx_hash FROM sandbox_orders WHERE payment_id = $1', [paymentId])).rows[0];

beforeAll(async () => {
  [anvil, db] = await Promise.all([startAnvil({ chainId: 31337 }), createTestDatabase('sandbox_recovery')]);
  const token = await deployFundedToken(anvil);
  webhooks = await startWebhookReceiver(secret);
  config = loadSandboxProviderConfig(
    sandboxEnv({ anvil, token, secret, schema: db.schema, databaseUrl: db.connectionString, webhookBaseUrl: webhooks.baseUrl }),
  );
  funder = createFunderWallet(config);
  orders = new SandboxOrderRepository(db.pool);
  await orders.ensureTable(db.schema);
  balanceOf = usdcReader(anvil, token);
});

afterAll(async () => {
  for (const app of apps) await app.close();
  await webhooks?.close();
  await db?.drop();
  await anvil?.stop();
});

describe('an order interrupted between storing and broadcasting its transfer', () => {
  it('is finished at boot with the stored bytes, once', async () => {
    const link = signedLink(secret);
    const signed = await interruptedOrder(link);
    expect(await balanceOf(link.address)).toBe(0n);

    await start();
    expect(await row(link.paymentId)).toEqual({ status: 'paid', tx_hash: signed.hash });
    expect(await balanceOf(link.address)).toBe(NET_USDC_FOR_49_99_EUR);
    await waitFor(
      'the paid webhook, verified',
      () => webhooks.for(link.paymentId).some((hook) => hook.body.status === 'paid' && hook.verified),
      5_000,
      25,
    );

    await start();
    expect(await balanceOf(link.address)).toBe(NET_USDC_FOR_49_99_EUR);
  });

  it('is finished by the next post for it, whatever card that post carries', async () => {
    const app = await start();
    const link = signedLink(secret);
    const signed = await interruptedOrder(link);
    const response = await postForm(app, link.params);
    expect(returnedTo(response)).toBe(link.returnUrl);
    expect(await row(link.paymentId)).toEqual({ status: 'paid', tx_hash: signed.hash });
    expect(await balanceOf(link.address)).toBe(NET_USDC_FOR_49_99_EUR);
  });

  it('while the page shows it, offers to finish it without the card again', async () => {
    const app = await start();
    const link = signedLink(secret);
    await interruptedOrder(link);
    const response = await app.inject(link.url);
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('Payment in progress');
    expect(response.body).not.toContain('cc-number');
    expect(response.body).toContain(`href="${link.returnUrl}"`);
  });

  it('is signed anew when its nonce went to another transaction, and still pays once', async () => {
    const app = await start();
    const link = signedLink(secret);
    const stale = await interruptedOrder(link);
    // Someone else uses the funded account: the stored transfer's nonce is spent and it can never be mined.
    const other = await funder.signTransfer(freshAddress(), 1n);
    await funder.broadcast(other.rawTx);
    await funder.waitForReceipt(other.hash, 5_000);

    const response = await postForm(app, link.params);
    expect(returnedTo(response)).toBe(link.returnUrl);
    const paid = await row(link.paymentId);
    expect(paid.status).toBe('paid');
    expect(paid.tx_hash).not.toBe(stale.hash);
    expect(await balanceOf(link.address)).toBe(NET_USDC_FOR_49_99_EUR);
  });
});

describe('a transfer not mined within the wait', () => {
  it('shows the payment in progress (202), and the next post finishes it without paying twice', async () => {
    const app = await start(300);
    const chain = createTestClient({ mode: 'anvil', chain: defineLocalChain(anvil), transport: http(anvil.rpcUrl, { retryCount: 0 }) });
    const link = signedLink(secret);
    await chain.setAutomine(false);
    try {
      const waiting = await postForm(app, { ...link.params, name: 'Jane Doe', number: '4242424242424242', expiry: '12/39', cvc: '123' });
      expect(waiting.statusCode).toBe(202);
      expect(waiting.body).toContain('Payment in progress');
      expect(waiting.body).toContain(`href="${link.returnUrl}"`);
      expect(await row(link.paymentId)).toEqual({ status: 'paying', tx_hash: expect.stringMatching(/^0x/) });
      await chain.mine({ blocks: 1 });
    } finally {
      await chain.setAutomine(true);
    }
    const finished = await postForm(app, link.params);
    expect(returnedTo(finished)).toBe(link.returnUrl);
    expect((await row(link.paymentId)).status).toBe('paid');
    expect(await balanceOf(link.address)).toBe(NET_USDC_FOR_49_99_EUR);
  });
});
