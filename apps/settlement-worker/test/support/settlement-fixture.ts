import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Pool } from 'pg';
import { createPublicClient, createTestClient, getAddress, http, parseEventLogs, type Address, type Hash, type PublicClient } from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import {
  defineLocalChain,
  deployTestUsdc,
  mintTestUsdc,
  setTestUsdcBlacklisted,
  usdcAbi,
  type TestUsdcAdminOptions,
  PUBLIC_TEST_MNEMONIC,
} from '@gateway/chain';
import { callbackJobId, enqueueSettlements, openSettlementQueue, QUEUE_NAMES, redisConnection, type SettlementQueue } from '@gateway/queue';
import { anvilAccounts, RpcProxy, startAnvil, waitFor, type RunningAnvil } from '@gateway/testkit';
import { createTestDatabase, seedDeposit, seedWallet, sqlExpression, type TestDatabase } from '@gateway/app-testkit';
import type { FastifyInstance } from 'fastify';
import { loadSettlementConfig, type SettlementConfig } from '../../src/config';
import { buildSettlementWorkerApp } from '../../src/app';
import { SettlementChainClient } from '../../src/chain/settlement-chain-client';

export const USDC = 1_000_000n;
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const deployer = anvilAccounts[0];
export const relayerAccount = anvilAccounts[1];
// Temporary wallets start at this HD index: the first ten children of the test mnemonic are the
// accounts anvil funds with ether, and a temporary wallet must never hold any.
const FIRST_TEMPORARY_INDEX = 100;

export interface WalletOptions {
  affiliate?: { address: Address; bps: number };
  /** The platform fee recorded on the wallet at its creation; 100 (1%) when not given. */
  platformFeeBps?: number;
  /** A fresh address of its own when not given (one merchant's orders share theirs). */
  payoutAddress?: Address;
}

export interface TestWallet {
  id: string;
  hdIndex: number;
  address: Address;
  payoutAddress: Address;
}

export interface TestDeposit {
  id: string;
  txHash: Hash;
  amount: bigint;
}

/** anvil + TestUSDC + a fresh schema + a Redis prefix of its own, and helpers to make deposits and read balances. */
export class SettlementFixture {
  readonly prefix = `test-${randomUUID()}`;
  readonly platformFeeAddress = freshAddress();
  readonly rpc: PublicClient;
  private nextHdIndex = FIRST_TEMPORARY_INDEX;
  private settlementQueueInstance: SettlementQueue | undefined;
  private callbackQueueInstance: Queue | undefined;
  private app: FastifyInstance | undefined;

  private constructor(
    readonly anvil: RunningAnvil,
    readonly db: TestDatabase,
    readonly token: Address,
  ) {
    this.rpc = createPublicClient({
      chain: defineLocalChain(anvil),
      transport: http(anvil.rpcUrl, { retryCount: 0 }),
      pollingInterval: 50,
      cacheTime: 0,
    }) as PublicClient;
  }

  static async start(label: string, anvilOptions: Parameters<typeof startAnvil>[0] = {}): Promise<SettlementFixture> {
    // Every block final at once (anvil's `finalized` tag is the head): payouts wait for nothing
    // but their receipt. Tests of finality put a proxy in front that holds `finalized` back.
    const [anvil, db] = await Promise.all([startAnvil({ slotsInAnEpoch: 0, ...anvilOptions }), createTestDatabase(label)]);
    const token = await deployTestUsdc({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, deployerKey: deployer.privateKey });
    return new SettlementFixture(anvil, db, token);
  }

  /** The token's deployer, who may blacklist and pause TestUSDC. */
  get tokenAdmin(): TestUsdcAdminOptions {
    return { rpcUrl: this.anvil.rpcUrl, chainId: this.anvil.chainId, token: this.token, adminKey: deployer.privateKey };
  }

  /** Settlement settings for this fixture; `overrides` win (e.g. another RPC URL). */
  env(overrides: Record<string, string> = {}): Record<string, string> {
    return {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: this.db.connectionString,
      DATABASE_SCHEMA: this.db.schema,
      DATABASE_POOL_SIZE: '6',
      REDIS_URL,
      REDIS_PREFIX: this.prefix,
      CHAIN_RPC_URL: this.anvil.rpcUrl,
      CHAIN_ID: String(this.anvil.chainId),
      USDC_TOKEN_ADDRESS: this.token,
      CONFIRMATIONS: '0',
      SETTLEMENT_MNEMONIC: PUBLIC_TEST_MNEMONIC,
      RELAYER_PRIVATE_KEY: relayerAccount.privateKey,
      PLATFORM_FEE_ADDRESS: this.platformFeeAddress,
      DUST_THRESHOLD: '10000',
      WORKER_CONCURRENCY: '2',
      POLL_INTERVAL_MS: '100',
      RECONCILE_INTERVAL_MS: '60000',
      JOB_LOCK_MS: '2000',
      METRICS_PORT: '0',
      METRICS_HOST: '127.0.0.1',
      ...overrides,
    };
  }

  config(overrides: Record<string, string> = {}): SettlementConfig {
    return loadSettlementConfig(this.env(overrides));
  }

  /** A settlement app in this process (not started); `pool` defaults to one with the settlement-worker's role, as in production. */
  async buildApp(overrides: Record<string, string> = {}, pool: Pool = this.db.appPool('settlement-worker')): Promise<FastifyInstance> {
    const config = this.config(overrides);
    const chain = await SettlementChainClient.connect({
      rpcUrl: config.raw.CHAIN_RPC_URL,
      chainId: config.raw.CHAIN_ID,
      token: config.tokenAddress,
      pollingIntervalMs: config.raw.POLL_INTERVAL_MS,
      maxBlockRange: config.raw.MAX_BLOCK_RANGE,
    });
    return buildSettlementWorkerApp({ config, pool, chain, logger: false });
  }

  /** Builds a settlement app and starts its worker; one at a time, stopped by `stopApp` or `reset`. */
  async startApp(overrides: Record<string, string> = {}): Promise<FastifyInstance> {
    this.app = await this.buildApp(overrides);
    this.app.settlementConsumer.start();
    return this.app;
  }

  /** The app `startApp` started, or one started now with the fixture's settings. */
  async runningApp(): Promise<FastifyInstance> {
    return this.app ?? this.startApp();
  }

  async stopApp(): Promise<void> {
    await this.app?.close();
    this.app = undefined;
  }

  /** After each test: the app stopped and anvil mining at once again, also after a test that failed with automine off. */
  async reset(): Promise<void> {
    await this.stopApp();
    await this.testClient().setAutomine(true);
  }

  /**
   * A deposit of `amount` whose legs get sent and stay unmined: a worker that bumps nothing
   * (STUCK_TX_TIMEOUT_MS far off), anvil's automine off (`reset` turns it on), the deposit enqueued.
   */
  async sendUnmined(amount: bigint, overrides: Record<string, string> = {}): Promise<{ wallet: TestWallet; deposit: TestDeposit }> {
    await this.startApp({ STUCK_TX_TIMEOUT_MS: '600000', ...overrides });
    const wallet = await this.createWallet();
    const deposit = await this.deposit(wallet, amount);
    await this.testClient().setAutomine(false);
    await this.enqueue(deposit.id);
    return { wallet, deposit };
  }

  /**
   * A deposit of `amount` in needs_attention (payout_address_blacklisted): a worker started, the
   * wallet's payout address blacklisted by the token before the deposit; the worker left running.
   */
  async payoutAddressBlocked(amount: bigint): Promise<{ wallet: TestWallet; deposit: TestDeposit }> {
    await this.startApp();
    const wallet = await this.createWallet();
    await setTestUsdcBlacklisted(this.tokenAdmin, wallet.payoutAddress, true);
    const deposit = await this.deposit(wallet, amount);
    await this.enqueue(deposit.id);
    await this.waitForStatus(deposit.id, 'needs_attention', 20_000);
    return { wallet, deposit };
  }

  /**
   * A deposit of `amount` forwarded with its fee leg in needs_attention (fee_address_blacklisted):
   * a worker started with a platform fee address the token has blacklisted, left running.
   */
  async forwardedWithFeeLegBlocked(amount: bigint): Promise<{ wallet: TestWallet; deposit: TestDeposit }> {
    const feeAddress = freshAddress();
    await setTestUsdcBlacklisted(this.tokenAdmin, feeAddress, true);
    await this.startApp({ PLATFORM_FEE_ADDRESS: feeAddress });
    const wallet = await this.createWallet();
    const deposit = await this.deposit(wallet, amount);
    await this.enqueue(deposit.id);
    await waitFor(
      'the fee leg to need attention',
      async () => (await this.legsOf(deposit.id)).some((leg) => leg.leg === 'platform' && leg.status === 'needs_attention'),
      20_000,
    );
    await this.waitForStatus(deposit.id, 'forwarded', 20_000);
    return { wallet, deposit };
  }

  /** True once each of `legs` has a transaction broadcast (recorded alone could still be unsent). */
  async legsSent(depositId: string, legs: string[] = ['merchant', 'platform']): Promise<boolean> {
    const transactions = await this.transactionsOf(depositId);
    return legs.every((leg) => transactions.some((t) => t.leg === leg && t.status === 'sent'));
  }

  /** Waits until both legs' transactions are mined (successfully) on the chain as it is now, whatever the worker has concluded about them yet; gives their blocks. */
  async bothLegsMined(depositId: string): Promise<bigint[]> {
    return waitFor(
      'both legs mined',
      async () => {
        const transactions = await this.transactionsOf(depositId);
        const receipts = await Promise.all(
          transactions.map((t) => this.rpc.getTransactionReceipt({ hash: t.tx_hash as Hash }).catch(() => null)),
        );
        const mined = receipts.filter((receipt) => receipt?.status === 'success');
        return mined.length === 2 ? mined.map((receipt) => receipt!.blockNumber) : undefined;
      },
      20_000,
    );
  }

  async waitForSent(depositId: string, legs: string[] = ['merchant', 'platform']): Promise<void> {
    await waitFor(`${legs.join(' and ')} legs of deposit ${depositId} sent`, () => this.legsSent(depositId, legs), 20_000);
  }

  /** The running app's sample of `name` whose labels hold `labels` (the app adds a `service` label to each); 0 when it has none. */
  async metric(name: string, labels = ''): Promise<number> {
    const body = (await this.app!.inject({ method: 'GET', url: '/metrics' })).body;
    const line = body.split('\n').find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && l.includes(labels));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  }

  async createWallet(options: WalletOptions = {}): Promise<TestWallet> {
    const hdIndex = this.nextHdIndex++;
    const address = mnemonicToAccount(PUBLIC_TEST_MNEMONIC, { addressIndex: hdIndex }).address;
    const payoutAddress = options.payoutAddress ?? freshAddress();
    const { id } = await seedWallet(this.db.pool, {
      hdIndex,
      polygonAddress: address,
      addressIn: `sealed-${randomUUID()}`,
      payoutAddress,
      callbackUrl: `https://shop.example/ipn?order=${hdIndex}`,
      affiliateAddress: options.affiliate?.address ?? null,
      affiliateFeeBps: options.affiliate?.bps ?? null,
      platformFeeBps: options.platformFeeBps ?? 100,
    });
    return { id, hdIndex, address, payoutAddress };
  }

  /**
   * Mints USDC (or `token`, e.g. a second TestUSDC playing USDC.e) into the temporary wallet and
   * records the deposit as the chain watcher would, already final.
   */
  async deposit(wallet: TestWallet, amount: bigint, token: Address = this.token): Promise<TestDeposit> {
    const txHash = await mintTestUsdc({
      rpcUrl: this.anvil.rpcUrl,
      chainId: this.anvil.chainId,
      token,
      ownerKey: deployer.privateKey,
      to: wallet.address,
      amount,
    });
    const receipt = await this.rpc.getTransactionReceipt({ hash: txHash });
    const [transfer] = parseEventLogs({ abi: usdcAbi, eventName: 'Transfer', logs: receipt.logs });
    const { id } = await seedDeposit(this.db.pool, {
      chainId: this.anvil.chainId,
      txHash,
      logIndex: transfer!.logIndex,
      blockNumber: receipt.blockNumber,
      blockHash: receipt.blockHash,
      walletId: wallet.id,
      fromAddress: transfer!.args.from,
      amount,
      status: 'final',
      finalAt: sqlExpression('now()'),
      token,
    });
    return { id, txHash, amount };
  }

  /** Producer view of the settlement queue (one per fixture). */
  get settlementQueue(): SettlementQueue {
    this.settlementQueueInstance ??= openSettlementQueue({ url: REDIS_URL, prefix: this.prefix });
    return this.settlementQueueInstance;
  }

  get callbackQueue(): Queue {
    this.callbackQueueInstance ??= new Queue(QUEUE_NAMES.callbacks, {
      connection: redisConnection({ url: REDIS_URL, prefix: this.prefix }, 'producer'),
      prefix: this.prefix,
    });
    return this.callbackQueueInstance;
  }

  async enqueue(depositId: string): Promise<void> {
    await enqueueSettlements(this.settlementQueue, [depositId]);
  }

  async hasCallbackJob(deliveryId: string): Promise<boolean> {
    return (await this.callbackQueue.getJob(callbackJobId(deliveryId))) !== undefined;
  }

  async depositStatus(depositId: string): Promise<string> {
    const { rows } = await this.db.pool.query<{ status: string }>('SELECT status FROM deposits WHERE id = $1', [depositId]);
    return rows[0]!.status;
  }

  async waitForStatus(depositId: string, status: string, timeoutMs = 30_000): Promise<void> {
    await waitFor(`deposit ${depositId} to become ${status}`, async () => (await this.depositStatus(depositId)) === status, timeoutMs);
  }

  /**
   * Forwarded and every leg confirmed. The merchant's leg forwards the deposit (and writes its
   * callback) as soon as it is confirmed; the fee and affiliate legs may confirm a run later.
   */
  /** A deposit of `amount` into the wallet, settled by the running worker: enqueued, forwarded, every leg confirmed. */
  async depositPaidOut(wallet: TestWallet, amount: bigint): Promise<TestDeposit> {
    const deposit = await this.deposit(wallet, amount);
    await this.enqueue(deposit.id);
    await this.waitForPaidOut(deposit.id);
    return deposit;
  }

  async waitForPaidOut(depositId: string, timeoutMs = 30_000): Promise<void> {
    await waitFor(
      `deposit ${depositId} to be forwarded with every leg confirmed`,
      async () =>
        (await this.depositStatus(depositId)) === 'forwarded' && (await this.legsOf(depositId)).every((leg) => leg.status === 'confirmed'),
      timeoutMs,
    );
  }

  usdcBalance(owner: Address, token: Address = this.token): Promise<bigint> {
    return this.rpc.readContract({ address: token, abi: usdcAbi, functionName: 'balanceOf', args: [owner] });
  }

  /** Deploys a second TestUSDC on the same chain (it plays the other USDC, USDC.e). */
  deploySecondToken(): Promise<Address> {
    return deployTestUsdc({ rpcUrl: this.anvil.rpcUrl, chainId: this.anvil.chainId, deployerKey: deployer.privateKey });
  }

  nativeBalance(owner: Address): Promise<bigint> {
    return this.rpc.getBalance({ address: owner });
  }

  /** How many times each authorization nonce of this wallet was used on chain (AuthorizationUsed logs). */
  async authorizationUses(authorizer: Address): Promise<Map<string, number>> {
    const logs = await this.rpc.getContractEvents({
      address: this.token,
      abi: usdcAbi,
      eventName: 'AuthorizationUsed',
      args: { authorizer },
      fromBlock: 0n,
      strict: true,
    });
    const uses = new Map<string, number>();
    for (const log of logs) uses.set(log.args.nonce.toLowerCase(), (uses.get(log.args.nonce.toLowerCase()) ?? 0) + 1);
    return uses;
  }

  async legsOf(depositId: string) {
    const { rows } = await this.db.pool.query<{
      leg: string;
      to_address: string;
      amount: string;
      authorization_nonce: string;
      status: string;
      tx_hash: string | null;
    }>(
      'SELECT id::text, leg, to_address, amount::text, authorization_nonce, status, tx_hash FROM payouts WHERE deposit_id = $1 ORDER BY ' +
        'payouts.id',
      [depositId],
    );
    return rows;
  }

  async transactionsOf(depositId: string) {
    const { rows } = await this.db.pool.query<{ leg: string; relayer_nonce: string; tx_hash: string; reason: string; status: string }>(
      `SELECT t.id::text AS id, p.leg, t.relayer_nonce::text, t.tx_hash, t.reason, t.status
       FROM payout_transactions t JOIN payouts p ON p.id = t.payout_id WHERE p.deposit_id = $1 ORDER BY t.id`,
      [depositId],
    );
    return rows;
  }

  async deliveryOf(depositId: string) {
    const { rows } = await this.db.pool.query<{
      id: string;
      wallet_id: string;
      value_coin: string;
      value_forwarded_coin: string;
      fee_coin: string;
      txid_in: string;
      txid_out: string;
      status: string;
    }>(
      `SELECT id::text, wallet_id::text, value_coin::text, value_forwarded_coin::text, fee_coin::text, txid_in, txid_out, status
       FROM callback_deliveries WHERE deposit_id = $1`,
      [depositId],
    );
    return rows;
  }

  /** anvil's test methods: mining control, dropping transactions. */
  testClient() {
    return createTestClient({ mode: 'anvil', chain: defineLocalChain(this.anvil), transport: http(this.anvil.rpcUrl, { retryCount: 0 }) });
  }

  async close(): Promise<void> {
    // The workers under test wrote to both queues; leave nothing behind in the shared Redis.
    for (const queue of [this.settlementQueue, this.callbackQueue]) {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
    await this.anvil.stop();
    await this.db.drop();
  }
}

/**
 * One fixture for the test file that calls this at its top level: started before its tests (and
 * handed to `use`), reset after each test, closed after all.
 */
export function settlementFixtureForFile(label: string, use: (fixture: SettlementFixture) => void): void {
  let fixture: SettlementFixture | undefined;
  beforeAll(async () => {
    fixture = await SettlementFixture.start(label);
    use(fixture);
  });
  afterEach(() => fixture?.reset());
  afterAll(() => fixture?.close());
}

/**
 * settlementFixtureForFile, with a node proxy in front of its anvil (started after it, handed to
 * `use` with it): the tests hold the `finalized` tag back or break answers through it. Its tag goes
 * back to `finalizedTag` after each test; it closes after all.
 */
export function settlementFixtureWithProxyForFile(
  label: string,
  use: (fixture: SettlementFixture, proxy: RpcProxy) => void,
  finalizedTag: RpcProxy['finalizedTag'] = 'pass',
): void {
  let fixture: SettlementFixture | undefined;
  let proxy: RpcProxy | undefined;
  settlementFixtureForFile(label, (started) => (fixture = started));
  beforeAll(async () => {
    proxy = await RpcProxy.start(fixture!.anvil.rpcUrl);
    proxy.finalizedTag = finalizedTag;
    use(fixture!, proxy);
  });
  afterEach(() => {
    if (proxy) proxy.finalizedTag = finalizedTag;
  });
  afterAll(() => proxy?.close());
}

/**
 * One fixture and one working app for all the tests of the file that calls this at its top level:
 * the app built with `overrides` and started before its tests (both handed to `use`), both closed
 * after them.
 */
export function settlementAppForFile(
  label: string,
  use: (fixture: SettlementFixture, app: FastifyInstance) => void,
  overrides: Record<string, string> = {},
): void {
  let fixture: SettlementFixture | undefined;
  let app: FastifyInstance | undefined;
  beforeAll(async () => {
    fixture = await SettlementFixture.start(label);
    app = await fixture.buildApp(overrides);
    app.settlementConsumer.start();
    use(fixture, app);
  });
  afterAll(async () => {
    await app?.close();
    await fixture?.close();
  });
}

export function freshAddress(): Address {
  return getAddress(privateKeyToAccount(generatePrivateKey()).address);
}
