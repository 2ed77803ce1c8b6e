import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { TEST_DATABASE_URL } from '@gateway/testkit';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { ensureAppLoginUsers } from '../src/app-login-users';
import { callbackPathBinding, recoveryTiming } from '@gateway/domain';
import * as callbackWorker from '../src/apps/callback-worker';
// The operator CLI's (apps/cli, with the owner's login).
import * as cli from '../src/apps/cli';
import * as chainWatcher from '../src/apps/chain-watcher';
import * as paymentRedirect from '../src/apps/payment-redirect';
import * as settlementWorker from '../src/apps/settlement-worker';
// The owner's commands (release-callback) are wallet-control's.
import * as walletControl from '../src/apps/wallet-control';
import { createPool } from '../src/pool';
import { DATABASE_APPS, type DatabaseApp } from '../src/app-roles';
import { sampleExpectation } from './support/payment-expectation';

// Every statement of every repository method an app runs, run as that app's role (migration 014,
// app-privileges.sql), on rows that take each method down its writing path; then what the app must
// never do. Two guards keep the list whole: the repositories each app's source uses are the ones
// listed here, and every method of every repository is listed for some app (or for the owner).
// A method added without its grant, or a grant forgotten for a new column, fails here. Each app's
// entry point (@gateway/db/<app>) exports exactly the repositories listed for it, so an app's
// source cannot even compile one of tables its role may not touch.

const ROOT = join(__dirname, '..', '..', '..');
const CHAIN_ID = 137;
const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;

type RepositoryClass = new (pool: Pool, ...rest: never[]) => object;
const repositoriesOf = (module: Record<string, unknown>) =>
  Object.entries(module).filter(
    (entry): entry is [string, RepositoryClass] => entry[0].endsWith('Repository') && typeof entry[1] === 'function',
  );
const REPOSITORIES_DIR = join(__dirname, '..', 'src', 'repositories');
const repositoryClasses = readdirSync(REPOSITORIES_DIR).flatMap((file) => repositoriesOf(require(join(REPOSITORIES_DIR, file))));
const PACKAGE_DIR = join(__dirname, '..');
const { exports: PACKAGE_EXPORTS } = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8'));
/** The module `@gateway/db/<app>` (`.` for `@gateway/db`) resolves to, through the package's exports as the apps' imports do. */
const entryPoint = (subpath: string) => require(join(PACKAGE_DIR, PACKAGE_EXPORTS[subpath]['@gateway/source']));

/**
 * Which methods of which repositories each app runs. `owner`: operator commands that change what
 * no app may (gateway callbacks release) or read every table (gateway story), run with the owner's credentials.
 */
const USES: Record<DatabaseApp | 'owner', Record<string, string[]>> = {
  'wallet-control': {
    WalletRepository: ['createOrGetMany', 'findOwners', 'findPathOwners', 'areTemporaryWallets', 'reserveHdIndexes'],
    HdKeyRepository: ['registerAndList', 'list'],
    TokenRepository: ['register', 'list'],
    PaymentStatusRepository: ['findByIpnToken'],
    CallbackDeliveryRepository: ['resendFailed'],
    MerchantCallbackRepository: ['findLog', 'findResendable', 'resendLatest'],
    OrderRepository: ['findFacts'],
    // GET /admin/ledger; `gateway ledger export` runs it with the owner's login.
    LedgerRepository: ['knowsPayoutAddress', 'orders'],
  },
  'payment-redirect': {
    WalletLookupRepository: ['hasTemporaryAddress', 'orderTermsOf', 'orderTermsOfWallet'],
    PaymentRepository: [
      'insertManyForWallets',
      'claimSecondChance',
      'recordCheckouts',
      'failCheckout',
      'findCheckout',
      'claimSingleUse',
      'renewCheckout',
    ],
    PaymentReceiptRepository: ['findReceipt', 'findSummary', 'findOrder'],
    ProviderStatusRepository: [
      'recordProviderStatus',
      'recordProviderReport',
      'schedule',
      'scheduleNowFor',
      'find',
      'recordPoll',
      'listOverdue',
      'stop',
    ],
    ProviderEventRepository: ['save', 'find', 'tryLockConsumer'],
    TokenRepository: ['register', 'list'],
    RecoveryEmailRepository: [
      'scheduleDue',
      'listScheduled',
      'find',
      'claim',
      'recordSent',
      'recordRetry',
      'recordFailed',
      'skip',
      'failStaleSends',
      'markRecovered',
    ],
    CheckoutMeasureRepository: ['measure'],
  },
  'callback-worker': {
    CallbackDeliveryRepository: [
      'claimDue',
      'findStates',
      'releaseClaim',
      'recordAttempts',
      'overdueCutoff',
      'listOverdue',
      'oldestDueAgeSeconds',
      // gateway callbacks resend (apps/cli) runs as this role.
      'resendFailed',
    ],
  },
  'chain-watcher': {
    DepositRepository: [
      'matchTemporaryWallets',
      'gatewaySenders',
      'recordSeen',
      'unfinalBlocks',
      'recordedBlocksBetween',
      'markOrphaned',
      'markFinal',
      'moveSeen',
      'seenInBlocks',
      'orphansAbove',
      'checkoutsOf',
    ],
    ChainCursorRepository: ['get', 'initialize', 'move', 'set'],
    TokenRepository: ['register', 'list'],
  },
  'settlement-worker': {
    SettlementRepository: [
      'findDeposit',
      'tryLockDeposit',
      'holdDust',
      'holdOtherToken',
      'startForwarding',
      'heldDust',
      'walletsWithHeldDust',
      'completeForwarding',
      'needAttention',
      'replan',
      'listNeedingAttention',
      'findCallbackDelivery',
      'listUnsettled',
      'backlog',
    ],
    PayoutRepository: [
      'listLegs',
      'listTransactions',
      'saveSignature',
      'recordWithNewNonce',
      'recordReplacement',
      'markTransaction',
      'markLegNeedsAttention',
      'confirmLeg',
    ],
    HdKeyRepository: ['list'],
    GatewayAddressRepository: ['register'],
    WalletLookupRepository: ['hasTemporaryAddress'],
    TokenRepository: ['register', 'list'],
    // gateway deposits paid-by-hand, in the worker's environment.
    OperatorPayoutRepository: ['listHeld', 'find', 'record'],
  },
  owner: {
    WalletRepository: ['releaseCallback', 'releaseCallbackPath', 'listReleased'],
    WalletStoryRepository: ['findWallets', 'story'],
    CallbackDeliveryRepository: ['listGivenUp'],
    OrderRepository: ['findFacts'],
  },
};

let database: TestDatabase;
const called = new Map<string, Set<string>>();
/** The token every app of this database is configured with (migration 016). */
const token = { chainId: CHAIN_ID, address: hex(20) };

/** The repository on `app`'s pool (the owner's for `owner`), recording every method called on it. */
function repository<T extends object>(app: DatabaseApp | 'owner', Class: new (pool: Pool, ...rest: never[]) => T, ...rest: unknown[]): T {
  const pool = app === 'owner' ? database.pool : database.appPool(app);
  const instance = new (Class as unknown as new (...args: unknown[]) => T)(pool, ...rest);
  const key = `${app} ${Class.name}`;
  if (!called.has(key)) called.set(key, new Set());
  return new Proxy(instance, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value === 'function' && typeof property === 'string') called.get(key)!.add(property);
      return value;
    },
  });
}

let hdIndex = 0;
async function ownerWallet(): Promise<{ id: string; address: string; ipnToken: string; callbackUrl: string }> {
  const address = hex(20);
  const ipnToken = randomUUID();
  const callbackUrl = `https://shop.example/ipn?order=${randomUUID()}`;
  const { rows } = await database.pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
     VALUES ($1, $2, 'sealed', $3, $4, $5, $6) RETURNING id::text AS id`,
    [hdIndex++, address, hex(20), callbackUrl, randomBytes(32), ipnToken],
  );
  return { id: rows[0]!.id, address, ipnToken, callbackUrl };
}

async function ownerDeposit(walletId: string, status: string, amount = 25_000_000n): Promise<{ id: string; blockHash: string }> {
  const blockHash = hex(32);
  const { rows } = await database.pool.query<{ id: string }>(
    `INSERT INTO deposits (chain_id, tx_hash, log_index, block_number, block_hash, wallet_id, from_address, amount, status, final_at)
     VALUES ($1, $2, 0, 10, $3, $4, $5, $6, $7, now()) RETURNING id::text AS id`,
    [CHAIN_ID, hex(32), blockHash, walletId, hex(20), amount.toString(), status],
  );
  return { id: rows[0]!.id, blockHash };
}

async function ownerDelivery(
  walletId: string,
  depositId: string | null,
  status: 'pending' | 'delivered' | 'failed' | 'refused' = 'pending',
): Promise<string> {
  const id = randomUUID();
  await database.pool.query(
    `INSERT INTO callback_deliveries (id, wallet_id, deposit_id, value_coin, value_forwarded_coin, fee_coin, txid_in, txid_out,
      status, next_attempt_at)
     VALUES ($1, $2, $3, 25000000, 24750000, 250000, $4, $5, $6, now() - interval '1 minute')`,
    [id, walletId, depositId, hex(32), hex(32), status],
  );
  return id;
}

beforeAll(async () => {
  database = await createTestDatabase('app_roles');
});
afterAll(() => database.drop());

describe('wallet-control, as its role', () => {
  it('creates wallets (new, and a repeat of one), reserves HD indexes, checks addresses, registers and lists its key', async () => {
    const wallets = repository('wallet-control', walletControl.WalletRepository);
    const [index] = await wallets.reserveHdIndexes(1);
    const candidate = {
      hdIndex: index!,
      polygonAddress: hex(20),
      addressIn: 'sealed',
      payoutAddress: hex(20),
      callbackUrl: 'https://shop.example/ipn?order=wc',
      dedupeKey: randomBytes(32),
      ipnToken: randomUUID(),
      keyFingerprint: 'a1b2c3d4',
      platformFeeBps: 100,
      affiliate: { affiliateAddress: hex(20), affiliateFeeBps: 50, merchantFeeBps: null },
    };
    const [created] = await wallets.createOrGetMany([candidate]);
    expect(created).toMatchObject({ created: true });
    const [repeat] = await wallets.createOrGetMany([
      { ...candidate, hdIndex: index! + 1n, polygonAddress: hex(20), ipnToken: randomUUID() },
    ]);
    expect(repeat).toMatchObject({ created: false, row: { ipnToken: candidate.ipnToken } });
    // The callback's origin and path, claimed with its first wallet (migration 017): the next order
    // on it is a new wallet for the same terms, and another payout address meets the claim.
    const path = (url: string, payoutAddress: string) => callbackPathBinding(url, { payoutAddress, affiliate: null });
    const next = {
      ...candidate,
      hdIndex: index! + 2n,
      polygonAddress: hex(20),
      ipnToken: randomUUID(),
      affiliate: null,
      dedupeKey: randomBytes(32),
    };
    const bound = {
      ...next,
      callbackUrl: 'https://shop.example/bound?order=1',
      callbackPath: path('https://shop.example/bound', next.payoutAddress),
    };
    expect((await wallets.createOrGetMany([bound]))[0]).toMatchObject({ created: true });
    const stranger = hex(20);
    const [refused] = await wallets.createOrGetMany([
      {
        ...bound,
        hdIndex: index! + 3n,
        polygonAddress: hex(20),
        ipnToken: randomUUID(),
        dedupeKey: randomBytes(32),
        payoutAddress: stranger,
        callbackUrl: 'https://shop.example/bound?order=2',
        callbackPath: path('https://shop.example/bound', stranger),
      },
    ]);
    expect(refused).toMatchObject({ pathOwner: { payoutAddress: next.payoutAddress } });
    expect(await wallets.findPathOwners([bound.callbackPath.key])).toHaveLength(1);
    expect(await wallets.areTemporaryWallets([candidate.polygonAddress, hex(20)])).toEqual([true, false]);
    expect(await repository('wallet-control', walletControl.TokenRepository).register(token)).toBeUndefined();
    const keys = repository('wallet-control', walletControl.HdKeyRepository);
    expect(await keys.registerAndList('a1b2c3d4')).toEqual(['a1b2c3d4']);
    expect(await keys.list()).toEqual(['a1b2c3d4']);
  });

  it('reports a wallet with its payments, deposits and callbacks (Check Payment Status), and resends a failed callback', async () => {
    const wallet = await ownerWallet();
    const forwarded = await ownerDeposit(wallet.id, 'forwarded');
    await ownerDelivery(wallet.id, forwarded.id, 'delivered');
    await database.pool.query(
      `INSERT INTO payments (id, wallet_id, amount, currency, provider, email) VALUES ($1, $2, 25, 'USD', 'moonpay', 'a@b.io')`,
      [randomUUID(), wallet.id],
    );
    const status = await repository('wallet-control', walletControl.PaymentStatusRepository).findByIpnToken(wallet.ipnToken);
    expect(status).toMatchObject({ depositCount: 1, payments: [expect.anything()], forwarded: { count: 1 } });

    const deliveries = repository('wallet-control', walletControl.CallbackDeliveryRepository);
    const failed = await ownerDelivery(wallet.id, null, 'failed');
    expect(await deliveries.resendFailed(failed)).toMatchObject({ result: 'resent' });
    expect(await deliveries.resendFailed(failed)).toEqual({ result: 'not_failed', status: 'pending' });
  });

  it("reads an order's facts: its latest attempt's expectation and its counted deposits (Check Payment Status's order)", async () => {
    const wallet = await ownerWallet();
    const paymentId = randomUUID();
    await database.pool.query(
      `INSERT INTO payments (id, wallet_id, amount, currency, provider, email, amount_usd, expected_usdc, expected_basis, tolerance_bps,
                             window_ends_at)
       VALUES ($1, $2, 25, 'USD', 'moonpay', 'a@b.io', 25, 24000000, 'estimate', 250, now() + interval '1 day')`,
      [paymentId, wallet.id],
    );
    await ownerDeposit(wallet.id, 'forwarded', 24_000_000n);
    const orders = repository('wallet-control', walletControl.OrderRepository);
    expect(await orders.findFacts(wallet.id)).toMatchObject({
      expectation: { usdc: 24_000_000n, basis: 'estimate', toleranceBps: 250 },
      attempt: { paymentId, provider: 'moonpay', currency: 'USD' },
      deposits: [{ amount: 24_000_000n }],
    });
  });

  it("shows the merchant its callbacks' log and resends its latest callback, delivered or not, through the owner's function", async () => {
    const wallet = await ownerWallet();
    const callbacks = repository('wallet-control', walletControl.MerchantCallbackRepository);
    expect(await callbacks.findResendable(wallet.ipnToken)).toEqual({ walletId: wallet.id, latestDeliveryId: null });
    expect(await callbacks.resendLatest(wallet.id)).toBeUndefined();
    const delivered = await ownerDelivery(wallet.id, null, 'delivered');
    await database.pool.query(
      `INSERT INTO callback_attempts (delivery_id, attempt_no, started_at, duration_ms, status_code, error_code, error, response_excerpt)
       VALUES ($1, 1, now(), 12, 200, NULL, NULL, 'ok')`,
      [delivered],
    );
    const log = await callbacks.findLog(wallet.ipnToken, { deliveries: 10, attempts: 5, excerptChars: 200 });
    expect(log).toMatchObject({ deliveryCount: 1, deliveries: [{ id: delivered, attempts: [{ attemptNo: 1, responseExcerpt: 'ok' }] }] });
    expect(await callbacks.findResendable(wallet.ipnToken)).toEqual({ walletId: wallet.id, latestDeliveryId: delivered });
    expect(await callbacks.resendLatest(wallet.id)).toMatchObject({ resent: true, deliveryId: delivered });
    expect(await callbacks.resendLatest(wallet.id)).toMatchObject({ resent: false, deliveryId: delivered, status: 'pending' });
    expect(await callbacks.findLog(randomUUID(), { deliveries: 10, attempts: 5, excerptChars: 200 })).toBeUndefined();
  });

  it("reads a merchant's ledger: its orders with their payments, deposits, payout legs and first accepted callback", async () => {
    const wallet = await ownerWallet();
    const { rows } = await database.pool.query<{ payout: string; created: Date }>(
      'SELECT payout_address AS payout, created_at AS created FROM wallets WHERE id = $1',
      [wallet.id],
    );
    const { payout, created } = rows[0]!;
    const forwarded = await ownerDeposit(wallet.id, 'forwarded');
    await database.pool.query(
      `INSERT INTO payouts (deposit_id, leg, from_address, to_address, amount, authorization_nonce, valid_before, status, tx_hash)
       VALUES ($1, 'merchant', $2, $3, 24750000, $4, 0, 'confirmed', $5)`,
      [forwarded.id, wallet.address, payout, hex(32), hex(32)],
    );
    const delivery = await ownerDelivery(wallet.id, forwarded.id, 'delivered');
    await database.pool.query(
      `INSERT INTO callback_attempts (delivery_id, attempt_no, started_at, duration_ms, status_code) VALUES ($1, 1, now(), 12, 200)`,
      [delivery],
    );
    await database.pool.query(
      `INSERT INTO payments (id, wallet_id, amount, currency, provider, email, checkout_url, expected_usdc, expected_basis, tolerance_bps,
                             window_ends_at, amount_usd)
       VALUES ($1, $2, 25, 'USD', 'moonpay', 'a@b.io', 'https://x.example', 25000000, 'quote', 100, now() + interval '1 day', 25)`,
      [randomUUID(), wallet.id],
    );
    const ledger = repository('wallet-control', walletControl.LedgerRepository);
    expect(await ledger.knowsPayoutAddress(payout)).toBe(true);
    const orders = [];
    for await (const batch of ledger.orders({ payoutAddress: payout, from: created, to: new Date(created.getTime() + 1) })) {
      orders.push(...batch);
    }
    expect(orders).toMatchObject([
      {
        walletId: wallet.id,
        attempts: [{ provider: 'moonpay' }],
        deposits: [{ id: forwarded.id, counted: true }],
        payouts: [{ leg: 'merchant', amount: 24_750_000n, status: 'confirmed' }],
        firstAcceptedCallback: { deliveryId: delivery },
      },
    ]);
  });

  it("resends a wallet's latest callback only, from any status but pending, counted, and changes nothing else", async () => {
    const wallet = await ownerWallet();
    const pool = database.appPool('wallet-control');
    const resend = async () => (await pool.query('SELECT * FROM resend_latest_callback_delivery($1)', [wallet.id])).rows;
    const older = await ownerDelivery(wallet.id, null, 'failed');
    await database.pool.query(`UPDATE callback_deliveries SET created_at = now() - interval '1 hour' WHERE id = $1`, [older]);
    const latest = await ownerDelivery(wallet.id, null, 'delivered');
    await database.pool.query(
      `UPDATE callback_deliveries SET attempt_count = 3, delivered_at = now() - interval '1 minute' WHERE id = $1`,
      [latest],
    );
    const row = async (id: string) =>
      (await database.pool.query('SELECT * FROM callback_deliveries WHERE id = $1', [id])).rows[0] as Record<string, unknown>;
    const [olderBefore, latestBefore] = [await row(older), await row(latest)];
    expect(await resend()).toEqual([{ resent: true, delivery_id: latest, delivery_status: 'pending', due_at: expect.any(Date) }]);
    const latestAfter = await row(latest);
    expect(latestAfter).toEqual({
      ...latestBefore,
      status: 'pending',
      next_attempt_at: expect.any(Date),
      round_start_attempts: 3,
      resend_count: 1,
      resent_at: expect.any(Date),
    });
    expect(Math.abs((latestAfter.next_attempt_at as Date).getTime() - Date.now())).toBeLessThan(5_000);
    // The older one is not the latest: left as it is, failed.
    expect(await row(older)).toEqual(olderBefore);
    // Pending already: nothing moves, nothing is counted.
    expect(await resend()).toMatchObject([{ resent: false, delivery_id: latest, delivery_status: 'pending' }]);
    expect((await row(latest)).resend_count).toBe(1);
    expect((await pool.query('SELECT * FROM resend_latest_callback_delivery($1)', [(await ownerWallet()).id])).rows).toEqual([]);
  });

  it("moves a callback delivery only from failed to pending (the resend), through the owner's function", async () => {
    const wallet = await ownerWallet();
    const pool = database.appPool('wallet-control');
    const statusOf = async (id: string) =>
      (await database.pool.query<{ status: string }>('SELECT status FROM callback_deliveries WHERE id = $1', [id])).rows[0]!.status;
    const resend = async (id: string) => (await pool.query('SELECT * FROM resend_failed_callback_delivery($1)', [id])).rows;
    // A delivered callback set back to pending would be signed and sent again.
    const delivered = await ownerDelivery(wallet.id, null, 'delivered');
    await expect(pool.query(`UPDATE callback_deliveries SET status = 'pending' WHERE id = $1`, [delivered])).rejects.toMatchObject({
      code: '42501',
    });
    expect(await resend(delivered)).toMatchObject([{ resent: false, delivery_status: 'delivered' }]);
    expect(await statusOf(delivered)).toBe('delivered');
    const pending = await ownerDelivery(wallet.id, null, 'pending');
    expect(await resend(pending)).toMatchObject([{ resent: false, delivery_status: 'pending' }]);
    expect(await resend(randomUUID())).toEqual([]);
    const failed = await ownerDelivery(wallet.id, null, 'failed');
    expect(await resend(failed)).toEqual([{ resent: true, delivery_status: 'pending', due_at: expect.any(Date) }]);
    expect(await statusOf(failed)).toBe('pending');
    // A delivery the merchant refused is resent as a failed one (migration 030).
    const refused = await ownerDelivery(wallet.id, null, 'refused');
    await expect(pool.query(`UPDATE callback_deliveries SET status = 'pending' WHERE id = $1`, [refused])).rejects.toMatchObject({
      code: '42501',
    });
    expect(await resend(refused)).toEqual([{ resent: true, delivery_status: 'pending', due_at: expect.any(Date) }]);
  });

  it("runs the owner's functions with their own search_path, whatever the caller's", async () => {
    const { rows } = await database.pool.query<{ name: string; config: string[] }>(
      `SELECT proname AS name, proconfig AS config FROM pg_proc
       WHERE pronamespace = $1::regnamespace AND prosecdef ORDER BY proname`,
      [database.schema],
    );
    expect(rows).toEqual(
      ['record_first_token', 'resend_failed_callback_delivery', 'resend_latest_callback_delivery'].map((name) => ({
        name,
        config: [`search_path=${database.schema}, pg_temp`],
      })),
    );
  });
});

describe('payment-redirect, as its role', () => {
  it("records payments and their checkouts, the providers' statuses, and reads receipts", async () => {
    expect(await repository('payment-redirect', paymentRedirect.TokenRepository).register(token)).toBeUndefined();
    const wallet = await ownerWallet();
    expect(await repository('payment-redirect', paymentRedirect.WalletLookupRepository).hasTemporaryAddress(wallet.address)).toBe(true);
    // Process Payment reads who pays the fees and the split they are grossed up for (fees on top, migration 038).
    expect(await repository('payment-redirect', paymentRedirect.WalletLookupRepository).orderTermsOf(wallet.address)).toMatchObject({
      platformFeeBps: expect.any(Number),
      customerPaysFee: null,
    });
    // The receipt's second chance reads the same terms by the payment's wallet id.
    expect(await repository('payment-redirect', paymentRedirect.WalletLookupRepository).orderTermsOfWallet(wallet.id)).toMatchObject({
      platformFeeBps: expect.any(Number),
      customerPaysFee: null,
    });
    // The hosted checkout's ranking reads every provider's recent attempts and the deposits credited to them.
    expect(await repository('payment-redirect', paymentRedirect.CheckoutMeasureRepository).measure(30)).toBeInstanceOf(Map);
    const payments = repository('payment-redirect', paymentRedirect.PaymentRepository);
    const [paid, failed] = [randomUUID(), randomUUID()];
    const base = {
      polygonAddress: wallet.address,
      amount: '25',
      currency: 'USD',
      provider: 'moonpay',
      email: 'jane@shop.io',
      keyHash: randomBytes(32),
      expectation: sampleExpectation(),
    };
    expect(
      await payments.insertManyForWallets(
        [
          { id: paid, ...base },
          { id: failed, ...base },
        ],
        20,
      ),
    ).toEqual(['recorded', 'recorded']);
    // The wallet's attempts are counted (migration 027), and a payment's second chances.
    expect(await payments.insertManyForWallets([{ ...base, id: randomUUID() }], 2)).toEqual(['attempts_exhausted']);
    expect(await payments.claimSecondChance(failed, 1)).toBe(true);
    expect(await payments.claimSecondChance(failed, 1)).toBe(false);
    expect(await payments.recordCheckouts([{ id: paid, checkoutUrl: 'https://buy.moonpay.com/?x=1', providerReference: 'mp-1' }])).toEqual([
      true,
    ]);
    expect(await payments.failCheckout(failed, 'provider answered 503')).toBe(true);
    // The customer's link: a form checkout, single use, handed out once, then renewed (migration 017).
    const session = randomUUID();
    await payments.insertManyForWallets([{ id: session, ...base, provider: 'transak' }], 20);
    const form = { checkoutUrl: 'https://checkout.example/pay', formFields: { payment_id: session }, singleUse: true };
    expect(await payments.recordCheckouts([{ id: session, ...form, expiresAt: new Date(Date.now() + 300_000) }])).toEqual([true]);
    expect(await payments.findCheckout(session)).toMatchObject({ attempts: 1, checkout: { formFields: { payment_id: session } } });
    expect(await payments.claimSingleUse(session, 1)).toBe(true);
    expect(await payments.renewCheckout({ id: session, attempt: 2, ...form, served: true })).toBe(true);
    expect(await payments.renewCheckout({ id: failed, attempt: 1, checkoutUrl: 'https://checkout.example/again' })).toBe(true);

    const statuses = repository('payment-redirect', paymentRedirect.ProviderStatusRepository);
    const update = { providers: ['moonpay'], status: 'pending' as const, rawStatus: 'waitingPayment', providerReference: 'mp-1' };
    expect(await statuses.recordProviderStatus({ ...update, match: { paymentId: paid } })).toBe('updated');
    expect(
      await statuses.recordProviderStatus({
        ...update,
        status: 'paid',
        match: { providerReference: 'mp-1', walletAddress: wallet.address },
      }),
    ).toBe('updated');
    const deposit = await ownerDeposit(wallet.id, 'forwarded');
    await ownerDelivery(wallet.id, deposit.id);
    await database.pool.query(
      `INSERT INTO payouts (deposit_id, leg, from_address, to_address, amount, authorization_nonce, valid_before, status, tx_hash)
       VALUES ($1, 'merchant', $2, $3, 24750000, $4, 2000000000, 'confirmed', $5)`,
      [deposit.id, wallet.address, hex(20), hex(32), hex(32)],
    );
    const receipts = repository('payment-redirect', paymentRedirect.PaymentReceiptRepository);
    const receipt = await receipts.findReceipt(paid);
    expect(receipt).toMatchObject({ id: paid, providerStatus: 'paid', deposits: [{ status: 'forwarded', merchantNotified: false }] });
    expect(receipt!.deposits[0]!.forwardedTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await receipts.findSummary(paid)).toEqual({
      id: paid,
      amount: expect.any(String),
      currency: expect.any(String),
      provider: 'moonpay',
    });

    // The rest of an order (migration 033): recorded with the order's expectation and the attempt it completes, whose
    // amount the receipt reads back as the order's.
    const rest = randomUUID();
    const restPayment = { id: rest, ...base, amount: '10', expectation: sampleExpectation({ completes: paid }) };
    expect(await payments.insertManyForWallets([restPayment], 20)).toEqual(['recorded']);
    expect(await payments.findCheckout(rest)).toMatchObject({ completes: paid, walletId: String(wallet.id) });
    expect(await receipts.findOrder(String(wallet.id))).toMatchObject({
      attempt: { paymentId: rest },
      order: { paymentId: paid, amount: '25.00', currency: 'USD', usdRate: '1', usdRateSource: 'usd' },
    });

    // Status look-ups (migration 021): scheduled, hinted, counted, found overdue; a final status is never scheduled.
    const polls = statuses;
    expect(await polls.schedule([session, paid], new Date(Date.now() - 60_000))).toEqual([session]);
    expect(await polls.scheduleNowFor(['transak'], { paymentId: session })).toBe(session);
    await polls.recordPoll(session, new Date(Date.now() - 30_000));
    expect(await polls.find(session)).toMatchObject({ id: session, provider: 'transak', polls: 1, providerStatus: null });
    expect((await polls.listOverdue(1000, 10)).map((poll) => poll.id)).toEqual([session]);
    await polls.stop(session);
    expect(await polls.listOverdue(0, 10)).toEqual([]);

    // A provider's events, kept once (migration 028), under the consumer's lock.
    const events = repository('payment-redirect', paymentRedirect.ProviderEventRepository);
    const lock = await events.tryLockConsumer('simplex');
    expect(lock).toBeDefined();
    const event = {
      eventId: 'ev-1',
      providerReference: 'sx-1',
      paymentId: paid,
      body: { event_id: 'ev-1', name: 'payment_simplexcc_approved' },
    };
    await events.save('simplex', event);
    await events.save('simplex', { ...event, body: { changed: true } });
    expect(await events.find('simplex', { providerReference: 'sx-1' })).toEqual([event.body]);
    expect(await events.find('simplex', { paymentId: paid })).toEqual([event.body]);
    await lock!.release();
  });

  it('schedules, claims, sends, retries, fails and skips recovery e-mails, and counts recovered orders (migration 036)', async () => {
    const timing = recoveryTiming(10, 15);
    const payments = repository('payment-redirect', paymentRedirect.PaymentRepository);
    const records = repository('payment-redirect', paymentRedirect.RecoveryEmailRepository);
    const base = { amount: '25', currency: 'USD', provider: 'moonpay', email: 'jane@shop.io', expectation: sampleExpectation() };
    const declinedOrder = async () => {
      const wallet = await ownerWallet();
      const id = randomUUID();
      await payments.insertManyForWallets([{ id, polygonAddress: wallet.address, keyHash: randomBytes(32), ...base }], 20);
      await payments.recordCheckouts([{ id, checkoutUrl: 'https://buy.moonpay.com/?x=1' }]);
      await database.pool.query(
        `UPDATE payments SET provider_status = 'declined', provider_reason = 'card declined', provider_updated_at = now() - interval '20 minutes' WHERE id = $1`,
        [id],
      );
      return { wallet, id };
    };
    const [a, b, c, d] = [await declinedOrder(), await declinedOrder(), await declinedOrder(), await declinedOrder()];
    const scheduled = await records.scheduleDue(new Date(), timing);
    expect(scheduled.length).toBeGreaterThanOrEqual(4);
    expect(await records.scheduleDue(new Date(), timing)).toEqual([]);
    const recordOf = async (paymentId: string) =>
      (await database.pool.query<{ id: string }>('SELECT id FROM recovery_emails WHERE payment_id = $1', [paymentId])).rows[0]!.id;
    const [ra, rb, rc, rd] = [await recordOf(a.id), await recordOf(b.id), await recordOf(c.id), await recordOf(d.id)];
    expect((await records.listScheduled(1000)).map((row) => row.id)).toEqual(expect.arrayContaining([ra, rb, rc, rd]));
    expect(await records.find(ra)).toMatchObject({ paymentId: a.id, trigger: 'declined', facts: { state: 'scheduled', orderPaid: false } });

    // The link's key acts on the payment once claimed: its readers return it beside the payment's own.
    const linkHash = randomBytes(32);
    expect(await records.claim(ra, a.id, 'declined', linkHash)).toBe(1);
    expect(await records.claim(ra, a.id, 'declined', linkHash)).toBeUndefined();
    expect((await payments.findCheckout(a.id))!.keyHash).toContainEqual(linkHash);
    expect(await records.recordSent(ra, '<m@shop.io>')).toBe(true);
    expect(await records.claim(rb, b.id, 'declined', randomBytes(32))).toBe(1);
    expect(await records.recordRetry(rb, new Date(), 'ECONNECTION at CONN')).toBe(true);
    expect(await records.claim(rb, b.id, 'declined', randomBytes(32))).toBe(2);
    expect(await records.recordFailed(rb, 'retries_used', 'ECONNECTION at CONN')).toBe(true);
    expect(await records.skip(rc, c.id, 'order_paid')).toBe(true);
    expect(await records.claim(rd, d.id, 'declined', randomBytes(32))).toBe(1);
    expect(await records.failStaleSends(0)).toContain(rd);

    // USDC after the e-mail: the order counts as recovered, once.
    await database.pool.query(`UPDATE recovery_emails SET sent_at = now() - interval '1 minute' WHERE id = $1`, [ra]);
    await ownerDeposit(a.wallet.id, 'forwarded');
    expect(await records.markRecovered()).toBe(1);
    expect(await records.markRecovered()).toBe(0);
  });
});

describe('callback-worker, as its role', () => {
  it('claims, defers, records and resends deliveries, and reads the backlog', async () => {
    const wallet = await ownerWallet();
    const deliveries = repository('callback-worker', callbackWorker.CallbackDeliveryRepository);
    const [first, second] = [await ownerDelivery(wallet.id, null), await ownerDelivery(wallet.id, null)];
    expect(await deliveries.oldestDueAgeSeconds()).toBeGreaterThan(0);
    const cutoff = await deliveries.overdueCutoff(0);
    const overdue = (await deliveries.listOverdue(100, { until: cutoff })).map((d) => d.id);
    expect(overdue).toEqual(expect.arrayContaining([first, second]));
    const claimed = await deliveries.claimDue([first, second], 30_000);
    expect(claimed.map((c) => c.callbackUrl)).toEqual([wallet.callbackUrl, wallet.callbackUrl]);
    expect(await deliveries.releaseClaim(second, 1, new Date())).toBe(true);
    const attempt = { attemptNo: 1, startedAt: new Date(), durationMs: 12, responseExcerpt: '' };
    await deliveries.recordAttempts([{ ...attempt, deliveryId: first, statusCode: 500, outcome: { kind: 'failed' } }]);
    expect(await deliveries.findStates([first])).toMatchObject([{ status: 'failed' }]);
    expect(await deliveries.resendFailed(first)).toMatchObject({ result: 'resent' });
    // A refusal retried keeps its count in a row; the last one ends the delivery refused, which is resent too.
    await deliveries.claimDue([first], 0);
    const refusal = { ...attempt, attemptNo: 2, deliveryId: first, statusCode: 400 };
    await deliveries.recordAttempts([{ ...refusal, outcome: { kind: 'retry', nextAttemptAt: new Date(), refusalsInRow: 1 } }]);
    expect(await deliveries.claimDue([first], 0)).toMatchObject([{ attemptNo: 3, refusalsInRow: 1 }]);
    await deliveries.recordAttempts([{ ...refusal, attemptNo: 3, outcome: { kind: 'refused', refusalsInRow: 2 } }]);
    expect(await deliveries.findStates([first])).toMatchObject([{ status: 'refused' }]);
    expect(await deliveries.resendFailed(first)).toMatchObject({ result: 'resent' });
  });
});

describe('chain-watcher, as its role', () => {
  it('records deposits, moves them final or orphaned, brings one back, and keeps its cursor', async () => {
    const wallet = await ownerWallet();
    const deposits = repository('chain-watcher', chainWatcher.DepositRepository, CHAIN_ID);
    expect(await deposits.matchTemporaryWallets([wallet.address])).toEqual(new Map([[wallet.address, wallet.id]]));
    expect(await deposits.gatewaySenders([wallet.address])).toEqual(new Map([[wallet.address, 'temporary_wallet']]));
    const log = (blockHash: string, logIndex: number) => ({
      token: hex(20),
      txHash: hex(32),
      logIndex,
      blockNumber: 20n,
      blockHash,
      blockTime: new Date('2026-11-02T10:00:00Z'),
      walletId: wallet.id,
      fromAddress: hex(20),
      amount: 5_000_000n,
    });
    const [a, b] = [log(hex(32), 0), log(hex(32), 1)];
    const written = await deposits.recordSeen(database.appPool('chain-watcher'), [a, b]);
    expect(written).toHaveLength(2);
    expect(await deposits.checkoutsOf(written.map((row) => row.id))).toMatchObject([{ attempts: [] }, { attempts: [] }]);
    const blocks = await deposits.unfinalBlocks();
    expect(blocks.map((block) => block.blockHash).sort()).toEqual([a.blockHash, b.blockHash].sort());
    expect(await deposits.recordedBlocksBetween(15n, 25n)).toHaveLength(2);
    expect(await deposits.seenInBlocks(blocks)).toHaveLength(2);
    const pool = database.appPool('chain-watcher');
    expect(await deposits.markOrphaned(pool, [{ blockNumber: 20n, blockHash: a.blockHash }])).toHaveLength(1);
    expect(await deposits.orphansAbove(undefined)).toHaveLength(1);
    // The orphaned log read again from the canonical chain: back to seen, then final.
    const moved = { ...a, blockHash: hex(32), blockTime: new Date('2026-11-02T10:00:02Z') };
    expect(await deposits.recordSeen(pool, [moved])).toMatchObject([{ inserted: false }]);
    const { rows: times } = await database.pool.query('SELECT block_time FROM deposits WHERE tx_hash = $1', [a.txHash]);
    expect(times).toEqual([{ block_time: moved.blockTime }]);
    expect(await deposits.markFinal(pool, [{ blockNumber: 20n, blockHash: b.blockHash }])).toHaveLength(1);

    const cursors = repository('chain-watcher', chainWatcher.ChainCursorRepository);
    const key = { chainId: CHAIN_ID, token: hex(20) };
    const start = { blockNumber: 1n, blockHash: hex(32) };
    expect(await cursors.initialize(key, start)).toEqual(start);
    expect(await cursors.move(pool, key, start, { blockNumber: 2n, blockHash: hex(32) })).toBe(true);
    await cursors.set(key, start);
    expect(await cursors.get(key)).toEqual(start);
    expect(await repository('chain-watcher', chainWatcher.TokenRepository).register(token)).toBeUndefined();
  });
});

describe('settlement-worker, as its role', () => {
  const legs = (from: string, amount: bigint) =>
    (['merchant', 'platform'] as const).map((leg, i) => ({
      leg,
      fromAddress: from,
      toAddress: hex(20),
      amount: i === 0 ? amount - 250_000n : 250_000n,
      authorizationNonce: hex(32),
      validBefore: 2_000_000_000n,
    }));
  const signed = () => ({ txHash: hex(32), rawTx: hex(100), gasLimit: 90_000n, maxFeePerGas: 40n, maxPriorityFeePerGas: 30n });

  it('plans, signs, sends and confirms a payout, completes it with its callback, and reads its backlog', async () => {
    const wallet = await ownerWallet();
    const settlements = repository('settlement-worker', settlementWorker.SettlementRepository);
    const payouts = repository('settlement-worker', settlementWorker.PayoutRepository);
    const dust = await ownerDeposit(wallet.id, 'final', 1_000n);
    expect(await settlements.holdDust(dust.id)).toBe(true);
    expect(await settlements.heldDust(CHAIN_ID, wallet.id)).toEqual([{ id: dust.id, amount: 1_000n }]);
    expect(await settlements.walletsWithHeldDust(CHAIN_ID, wallet.address)).toHaveLength(1);
    const otherToken = await ownerDeposit(wallet.id, 'final', 3_000_000n);
    expect(await settlements.holdOtherToken(otherToken.id)).toBe(true);
    const deposit = await ownerDeposit(wallet.id, 'final');
    expect(await settlements.findDeposit(deposit.id)).toMatchObject({ status: 'final', payoutAddress: expect.any(String) });
    const lock = await settlements.tryLockDeposit(deposit.id);
    expect(lock).toBeDefined();
    expect(
      await settlements.startForwarding(deposit.id, legs(wallet.address, 25_001_000n), { sweptDepositIds: [dust.id], from: 'final' }),
    ).toBe(true);
    const [merchant, platform] = await payouts.listLegs(deposit.id);
    await payouts.saveSignature(merchant!.id, 2_000_000_100n, hex(65));
    const sent = await payouts.recordWithNewNonce({
      payoutId: merchant!.id,
      chainId: CHAIN_ID,
      relayerAddress: hex(20),
      reason: 'initial',
      readPendingNonce: async () => 0n,
      sign: async () => signed(),
    });
    await payouts.markTransaction(sent.id, 'sent');
    const bump = await payouts.recordReplacement({
      payoutId: merchant!.id,
      chainId: CHAIN_ID,
      relayerAddress: sent.relayerAddress,
      relayerNonce: sent.relayerNonce,
      reason: 'fee-bump',
      signed: signed(),
    });
    expect(await payouts.listTransactions(merchant!.id)).toHaveLength(2);
    await payouts.confirmLeg(merchant!.id, bump.txHash, 30n);
    expect(await payouts.markLegNeedsAttention(platform!.id, 'fee_address_blacklisted', 'Blacklistable: account is blacklisted')).toBe(
      true,
    );
    expect(await settlements.listUnsettled(CHAIN_ID, '0', 10)).toContain(deposit.id);
    const delivery = {
      id: randomUUID(),
      walletId: wallet.id,
      depositId: deposit.id,
      valueCoin: 25_001_000n,
      valueForwardedCoin: 24_751_000n,
      feeCoin: 250_000n,
      txidIn: hex(32),
      txidOut: bump.txHash,
    };
    expect(await settlements.completeForwarding(delivery)).toEqual({
      id: delivery.id,
      status: 'pending',
      finalForSeconds: expect.any(Number),
      order: { totalUsdc: expect.any(BigInt) },
    });
    // A repeat finds the delivery written the first time; the time final was counted then.
    expect(await settlements.completeForwarding({ ...delivery, id: randomUUID() })).toEqual({
      id: delivery.id,
      status: 'pending',
      finalForSeconds: null,
    });
    expect(await settlements.findCallbackDelivery(deposit.id)).toEqual({ id: delivery.id, status: 'pending' });
    expect(await settlements.listNeedingAttention(CHAIN_ID)).toMatchObject([{ depositId: deposit.id }]);
    expect(await settlements.backlog(CHAIN_ID)).toMatchObject({
      needingAttention: 0,
      heldForOperator: 1,
      heldForOperatorAmount: 3_000_000n,
    });
    await lock!.release();
  });

  it('parks a deposit that needs a person and re-plans it', async () => {
    const wallet = await ownerWallet();
    const settlements = repository('settlement-worker', settlementWorker.SettlementRepository);
    const payouts = repository('settlement-worker', settlementWorker.PayoutRepository);
    const deposit = await ownerDeposit(wallet.id, 'final');
    expect(await settlements.startForwarding(deposit.id, legs(wallet.address, 25_000_000n))).toBe(true);
    const [merchant] = await payouts.listLegs(deposit.id);
    expect(await payouts.markLegNeedsAttention(merchant!.id, 'payout_address_blacklisted', 'blacklisted')).toBe(true);
    expect(await settlements.needAttention(deposit.id, 'payout_address_blacklisted', 'blacklisted')).toBe(true);
    const active = await payouts.listLegs(deposit.id);
    expect(
      await settlements.replan(
        deposit.id,
        active.map((leg) => leg.id),
        legs(wallet.address, 25_000_000n),
      ),
    ).toBe(true);
  });

  it('records a payout by hand of a deposit held for the operator (gateway deposits paid-by-hand)', async () => {
    const wallet = await ownerWallet();
    const settlements = repository('settlement-worker', settlementWorker.SettlementRepository);
    const handPayouts = repository('settlement-worker', settlementWorker.OperatorPayoutRepository);
    const held = await ownerDeposit(wallet.id, 'final', 4_000_000n);
    expect(await settlements.holdOtherToken(held.id)).toBe(true);
    expect((await handPayouts.listHeld(CHAIN_ID)).find((listed) => listed.depositId === held.id)).toMatchObject({
      amount: 4_000_000n,
      status: 'held_for_operator',
    });
    expect(await handPayouts.find(held.id)).toMatchObject({ depositId: held.id, temporaryAddress: wallet.address });
    const payout = {
      chainId: CHAIN_ID,
      txHash: hex(32),
      logIndex: 2,
      blockNumber: 12n,
      blockHash: hex(32),
      token: hex(20),
      fromAddress: wallet.address,
      toAddress: hex(20),
      amount: 3_960_000n,
      paid: 'merchant_share' as const,
    };
    expect(await handPayouts.record(held.id, payout)).toEqual({ result: 'recorded' });
    expect(await handPayouts.record(held.id, payout)).toEqual({ result: 'not_held', status: 'paid_by_operator' });
    // The same transfer for another held deposit: nothing written, the deposit still held.
    const second = await ownerDeposit(wallet.id, 'final', 4_000_000n);
    expect(await settlements.holdOtherToken(second.id)).toBe(true);
    expect(await handPayouts.record(second.id, payout)).toEqual({ result: 'transfer_taken', depositId: held.id });
    expect(await handPayouts.find(second.id)).toMatchObject({ status: 'held_for_operator' });
  });

  it('registers its own addresses, checks the token, reads the HD key and looks up a temporary wallet', async () => {
    expect(await repository('settlement-worker', settlementWorker.TokenRepository).register(token)).toBeUndefined();
    await repository('settlement-worker', settlementWorker.GatewayAddressRepository).register([{ address: hex(20), role: 'relayer' }]);
    expect(await repository('settlement-worker', settlementWorker.HdKeyRepository).list()).toEqual(expect.any(Array));
    expect(await repository('settlement-worker', settlementWorker.WalletLookupRepository).hasTemporaryAddress(hex(20))).toBe(false);
  });
});

describe('the owner', () => {
  it('releases a callback (gateway callbacks release): no app may', async () => {
    const wallet = await ownerWallet();
    const wallets = repository('owner', walletControl.WalletRepository);
    await expect(wallets.releaseCallback(wallet.callbackUrl)).resolves.toMatchObject({ polygonAddress: wallet.address });
    const claim = callbackPathBinding('https://shop.example/claimed', { payoutAddress: hex(20), affiliate: null });
    await database.pool.query('INSERT INTO callback_paths (path_key, callback_path, terms, payout_address) VALUES ($1, $2, $3, $3)', [
      claim.key,
      claim.path,
      claim.terms,
    ]);
    await expect(wallets.releaseCallbackPath(claim.key)).resolves.toEqual({ claimed: true, wallets: [] });
    expect(await wallets.listReleased()).toMatchObject([{ polygonAddress: wallet.address }]);
  });

  it("reads a wallet's whole story (gateway story)", async () => {
    const wallet = await ownerWallet();
    const stories = repository('owner', cli.WalletStoryRepository);
    expect(await stories.findWallets({ by: 'ipn_token', value: wallet.ipnToken })).toEqual([wallet.id]);
    expect(await stories.story(wallet.id)).toMatchObject({ wallet: { id: wallet.id, temporaryAddress: wallet.address }, deposits: [] });
    expect(await repository('owner', cli.OrderRepository).findFacts(wallet.id)).toEqual({ walletToleranceBps: null, deposits: [] });
  });

  it('lists the deliveries the retries gave up on (gateway callbacks list)', async () => {
    const wallet = await ownerWallet();
    const refused = await ownerDelivery(wallet.id, null, 'refused');
    const deliveries = repository('owner', cli.CallbackDeliveryRepository);
    expect(await deliveries.listGivenUp(['refused'], 1)).toMatchObject([
      { id: refused, status: 'refused', callbackUrl: wallet.callbackUrl },
    ]);
  });
});

describe('what each app must never do', () => {
  const denied = { code: '42501' };
  const everyApp = DATABASE_APPS;
  it.each([
    ...everyApp.map((app) => [app, 'change a wallet', `UPDATE wallets SET payout_address = '${hex(20)}'`] as const),
    ...everyApp.map((app) => [app, 'delete a wallet', 'DELETE FROM wallets'] as const),
    ...everyApp
      .filter((app) => app !== 'settlement-worker')
      .flatMap((app) => [
        [
          app,
          'plan a payout leg',
          `INSERT INTO payouts (deposit_id, leg, from_address, to_address, amount, authorization_nonce, valid_before) VALUES (1, ` +
            `'merchant', '${hex(20)}', '${hex(20)}', 1, '${hex(32)}', 1)`,
        ] as const,
        [app, 'change a payout leg', `UPDATE payouts SET status = 'planned'`] as const,
        [app, 'record a relayer transaction', `UPDATE payout_transactions SET status = 'sent'`] as const,
        [app, 'allocate a relayer nonce', 'UPDATE relayer_nonces SET next_nonce = 0'] as const,
        [app, 'register a gateway address', `INSERT INTO gateway_addresses (address, role) VALUES ('${hex(20)}', 'relayer')`] as const,
      ]),
    ['settlement-worker', 'redirect a planned leg', `UPDATE payouts SET to_address = '${hex(20)}'`],
    ['settlement-worker', 'raise a planned leg', 'UPDATE payouts SET amount = amount + 1'],
    ['settlement-worker', 'change a deposit amount', 'UPDATE deposits SET amount = amount + 1'],
    ['wallet-control', 'release a callback (the owner does)', 'UPDATE wallets SET callback_released_at = now(), dedupe_key = NULL'],
    ['wallet-control', "release a callback path's claim (the owner does)", 'UPDATE callback_paths SET released_at = now()'],
    ['wallet-control', "delete a callback path's claim", 'DELETE FROM callback_paths'],
    ['payment-redirect', 'read the callback path claims', 'SELECT payout_address FROM callback_paths'],
    ['wallet-control', 'read a payout leg', 'SELECT to_address FROM payouts'],
    ['wallet-control', "read a payout leg's authorization", 'SELECT authorization_nonce, signature FROM payouts'],
    ['payment-redirect', 'read a payout address', 'SELECT payout_address FROM wallets'],
    ['payment-redirect', 'read an ipn_token', 'SELECT ipn_token FROM wallets'],
    ['payment-redirect', 'read where a leg pays', 'SELECT to_address, amount FROM payouts'],
    ['payment-redirect', 'create a wallet', `INSERT INTO wallets (hd_index) VALUES (1)`],
    ['payment-redirect', 'mark a callback delivered', `UPDATE callback_deliveries SET status = 'delivered'`],
    ['callback-worker', 'create a payment', `INSERT INTO payments (id) VALUES ('${randomUUID()}')`],
    ['callback-worker', 'write a delivery', `INSERT INTO callback_deliveries (id) VALUES ('${randomUUID()}')`],
    ['callback-worker', 'change what a callback reports', 'UPDATE callback_deliveries SET value_coin = value_coin + 1'],
    ['chain-watcher', 'move a deposit to forwarding', `UPDATE deposits SET forwarded_at = now()`],
    ['chain-watcher', "read a payment's e-mail", 'SELECT email FROM payments'],
    ['chain-watcher', 'write a delivery', `INSERT INTO callback_deliveries (id) VALUES ('${randomUUID()}')`],
    ['wallet-control', 'record a deposit', `INSERT INTO deposits (chain_id) VALUES (1)`],
    ['payment-redirect', 'record a deposit', `INSERT INTO deposits (chain_id) VALUES (1)`],
    ['callback-worker', 'record a deposit', `INSERT INTO deposits (chain_id) VALUES (1)`],
    ['settlement-worker', 'record a deposit', `INSERT INTO deposits (chain_id) VALUES (1)`],
    ['wallet-control', 'read the migrations or the roles', 'SELECT * FROM app_roles'],
    ['wallet-control', 'set a callback back to pending (its resend is a function)', `UPDATE callback_deliveries SET status = 'pending'`],
    ...everyApp.map(
      (app) =>
        [
          app,
          "record a token (the first is the function's)",
          `INSERT INTO chain_tokens (chain_id, address) VALUES (1, '${hex(20)}')`,
        ] as const,
    ),
    ...everyApp
      .filter((app) => app !== 'wallet-control' && app !== 'callback-worker')
      .map((app) => [app, 'resend a callback', `SELECT * FROM resend_failed_callback_delivery('${randomUUID()}')`] as const),
    ...everyApp
      .filter((app) => app !== 'wallet-control')
      .map((app) => [app, "resend a wallet's latest callback", 'SELECT * FROM resend_latest_callback_delivery(1)'] as const),
    ['wallet-control', "read an attempt's error text (the worker's words)", 'SELECT error FROM callback_attempts'],
    ['callback-worker', 'record a token', `SELECT record_first_token(1, '${hex(20)}')`],
  ] as Array<readonly [DatabaseApp, string, string]>)('%s may not %s', async (app, _what, sql) => {
    await expect(database.appPool(app).query(sql)).rejects.toMatchObject(denied);
  });

  it('connected as its login user (a member of its role only), cannot take another role nor leave its own for more', async () => {
    const urls = await ensureAppLoginUsers(TEST_DATABASE_URL, TEST_DATABASE_URL);
    const pool = createPool({ connectionString: urls['wallet-control'], schema: database.schema, max: 1, app: 'wallet-control' });
    const session = await pool.connect();
    try {
      expect((await session.query('SELECT current_user AS name')).rows[0].name).toBe('gateway_wallet_control');
      await expect(session.query('SET ROLE gateway_settlement_worker')).rejects.toMatchObject(denied);
      // RESET ROLE comes back to the role taken at connect; SET ROLE NONE to the login user, who
      // has nothing of its own and, NOINHERIT, not its app's role's privileges either.
      await session.query('RESET ROLE');
      expect((await session.query('SELECT current_user AS name')).rows[0].name).toBe('gateway_wallet_control');
      await session.query('SET ROLE NONE');
      expect((await session.query('SELECT current_user AS name')).rows[0].name).toBe('gateway_wallet_control_login');
      // Its app's schema is not even in sight (no USAGE): named with it, every table is refused.
      const table = (name: string) => `"${database.schema}".${name}`;
      await expect(session.query(`SELECT id FROM ${table('wallets')} LIMIT 1`)).rejects.toMatchObject(denied);
      await expect(session.query(`UPDATE ${table('wallets')} SET payout_address = '${hex(20)}'`)).rejects.toMatchObject(denied);
      await expect(session.query(`UPDATE ${table('payouts')} SET to_address = '${hex(20)}'`)).rejects.toMatchObject(denied);
      // Nor the writes issue 35 found open to a login user that inherited its role's grants.
      const delivered = await ownerDelivery((await ownerWallet()).id, null, 'delivered');
      await expect(
        session.query(`UPDATE ${table('callback_deliveries')} SET status = 'pending' WHERE id = $1`, [delivered]),
      ).rejects.toMatchObject(denied);
      await expect(session.query(`SELECT * FROM ${table('resend_failed_callback_delivery')}($1)`, [delivered])).rejects.toMatchObject(
        denied,
      );
      await expect(
        session.query(`INSERT INTO ${table('chain_tokens')} (chain_id, address) VALUES (1, '${hex(20)}')`),
      ).rejects.toMatchObject(denied);
    } finally {
      session.release();
      await pool.end();
    }
    // A login user of one app cannot connect as another app's role.
    const other = createPool({ connectionString: urls['payment-redirect'], schema: database.schema, max: 1, app: 'settlement-worker' });
    await expect(other.query('SELECT 1')).rejects.toMatchObject({ message: expect.stringMatching(/permission denied to set role/) });
    await other.end();
  });

  it('ensureAppLoginUsers makes every login user NOINHERIT, also one an earlier version made inheriting', async () => {
    const prefix = `inherit_${randomBytes(4).toString('hex')}`;
    const roles = DATABASE_APPS.map((app) => `${prefix}_${app.replaceAll('-', '_')}`);
    for (const role of roles) await database.pool.query(`CREATE ROLE "${role}" NOLOGIN`);
    await database.pool.query(`CREATE ROLE "${roles[0]}_login" LOGIN INHERIT IN ROLE "${roles[0]}"`);
    try {
      await ensureAppLoginUsers(TEST_DATABASE_URL, TEST_DATABASE_URL, prefix);
      const { rows } = await database.pool.query<{ rolname: string; rolinherit: boolean }>(
        'SELECT rolname, rolinherit FROM pg_roles WHERE rolname = ANY($1::text[]) ORDER BY rolname',
        [roles.map((role) => `${role}_login`)],
      );
      expect(rows).toEqual(
        roles.map((role) => ({ rolname: `${role}_login`, rolinherit: false })).sort((a, b) => a.rolname.localeCompare(b.rolname)),
      );
    } finally {
      for (const role of roles) {
        await database.pool.query(`DROP ROLE IF EXISTS "${role}_login"`);
        await database.pool.query(`DROP ROLE IF EXISTS "${role}"`);
      }
    }
  });

  // Issue 35: a login user made INHERIT (PostgreSQL's default, and what `gateway keys db-logins`
  // printed before) has its role's grants outside the role; migration 018's trigger, which checked
  // current_user, then let it set a delivered callback back to pending. Nothing may depend on it.
  it('an inheriting login user gains nothing by leaving its role (SET ROLE NONE)', async () => {
    const user = `gateway_wallet_control_inherit_${randomBytes(4).toString('hex')}`;
    await database.pool.query(`CREATE ROLE "${user}" LOGIN INHERIT IN ROLE gateway_wallet_control`);
    const url = new URL(TEST_DATABASE_URL);
    url.username = user;
    const pool = createPool({ connectionString: url.toString(), schema: database.schema, max: 1, app: 'wallet-control' });
    try {
      const session = await pool.connect();
      try {
        await session.query('SET ROLE NONE');
        expect((await session.query('SELECT current_user AS name')).rows[0].name).toBe(user);
        const statusOf = async (id: string) =>
          (await database.pool.query<{ status: string }>('SELECT status FROM callback_deliveries WHERE id = $1', [id])).rows[0]!.status;
        const delivered = await ownerDelivery((await ownerWallet()).id, null, 'delivered');
        await expect(
          session.query(`UPDATE callback_deliveries SET status = 'pending', next_attempt_at = now() WHERE id = $1`, [delivered]),
        ).rejects.toMatchObject(denied);
        expect((await session.query('SELECT * FROM resend_failed_callback_delivery($1)', [delivered])).rows).toMatchObject([
          { resent: false, delivery_status: 'delivered' },
        ]);
        expect(await statusOf(delivered)).toBe('delivered');
        await expect(session.query(`INSERT INTO chain_tokens (chain_id, address) VALUES (1, '${hex(20)}')`)).rejects.toMatchObject(denied);
      } finally {
        session.release();
      }
    } finally {
      await pool.end();
      await database.pool.query(`DROP ROLE "${user}"`);
    }
  });
});

describe('the list above is whole', () => {
  it('every method was run, as the app that runs it', () => {
    for (const [app, classes] of Object.entries(USES)) {
      for (const [name, methods] of Object.entries(classes)) {
        expect({ app, name, run: [...(called.get(`${app} ${name}`) ?? [])].sort() }).toEqual({ app, name, run: [...methods].sort() });
      }
    }
  });

  it('every method of every repository is listed for an app or the owner', () => {
    for (const [name, Class] of repositoryClasses) {
      const listed = new Set(Object.values(USES).flatMap((classes) => classes[name] ?? []));
      const methods = Object.getOwnPropertyNames(Class.prototype).filter((method) => method !== 'constructor');
      expect({ name, unlisted: methods.filter((method) => !listed.has(method)) }).toEqual({ name, unlisted: [] });
    }
  });

  it.each(DATABASE_APPS)('@gateway/db/%s exports exactly the repositories listed for it', (app) => {
    const exported = repositoriesOf(entryPoint(`./${app}`)).map(([name]) => name);
    expect(exported.sort()).toEqual(Object.keys(USES[app]).sort());
  });

  it('@gateway/db itself exports no repository', () => {
    expect(repositoriesOf(entryPoint('.'))).toEqual([]);
  });

  it.each(DATABASE_APPS)('%s uses exactly the repositories listed for it', (app) => {
    const source = sourceOf(join(ROOT, 'apps', app, 'src'));
    const used = repositoryClasses.map(([name]) => name).filter((name) => new RegExp(`\\b${name}\\b`).test(source));
    expect(used.sort()).toEqual(Object.keys(USES[app]).sort());
  });
});

function sourceOf(dir: string): string {
  return readdirSync(dir)
    .map((entry) => join(dir, entry))
    .map((path) => (statSync(path).isDirectory() ? sourceOf(path) : path.endsWith('.ts') ? readFileSync(path, 'utf8') : ''))
    .join('\n');
}
