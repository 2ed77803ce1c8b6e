// Every app of the gateway as its own process, as in production, on a fresh PostgreSQL schema and
// a local chain, with the sandbox provider standing in for the on-ramps. Nothing runs in-process.
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Address } from 'viem';
import { english, generateMnemonic } from 'viem/accounts';
import { deployTestUsdc, mintTestUsdc, xpubFromMnemonic } from '@gateway/chain';
import { appNodeArguments } from '@gateway/config';
import {
  anvilAccounts,
  deleteRedisPrefix,
  findFreePort,
  startAnvil,
  TEST_DATABASE_URL,
  type RunningAnvil,
  waitFor,
} from '@gateway/testkit';
import { createTestDatabase, testKeyEnv, type TestDatabase } from '@gateway/app-testkit';
import { ensureAppLoginUsers } from '@gateway/db';

const ROOT = join(__dirname, '..', '..', '..');
// Exchange rates from the sample table, never the network; the sandbox converts with the same one.
const RATE_FILE = join(ROOT, 'packages', 'rates', 'data', 'local-rates.json');
const [deployer, customer, relayer, platformFee, sandboxFunder] = anvilAccounts;
/** Anvil's own chain id: the sandbox provider refuses Polygon's 137. */
export const LOCAL_CHAIN_ID = 31337;

export interface GatewayStack {
  chain: RunningAnvil;
  db: TestDatabase;
  token: Address;
  /** A second test USDC playing the other Polygon USDC (USDC.e): followed, held for the operator, never settled. */
  otherToken: Address;
  walletControlUrl: string;
  paymentUrl: string;
  sandboxUrl: string;
  /** An account holding test USDC, to pay a temporary wallet directly as an on-ramp would. */
  customer: { address: Address; privateKey: `0x${string}` };
  /** Where the platform fee goes. */
  platformFeeAddress: Address;
  /** Public key (KeyObject) that verifies the callback signatures. */
  callbackPublicKey: ReturnType<typeof generateKeyPairSync>['publicKey'];
  /** The workers as processes of their own: started (again) on demand, also on another database (a restored one). */
  workers: StackWorkers;
  stop(): Promise<void>;
}

/** The apps a test may hold back at boot, stop and start again. */
export type StackWorker = 'chain-watcher' | 'settlement-worker' | 'callback-worker';

/** Where a worker started again keeps its records and its work in flight, when not the stack's own. */
export interface WorkerTarget {
  /** Each app's login user's URL of that database (ensureAppLoginUsers). */
  databaseUrls: Record<StackWorker, string>;
  schema: string;
  redisPrefix: string;
}

export interface StackWorkers {
  /** Starts `worker` (on `target`, else the stack's database and Redis prefix); resolves when its /readyz answers. */
  start(worker: StackWorker, target?: WorkerTarget): Promise<void>;
  /** SIGTERM to every running process of `worker`; resolves when they have exited. */
  stop(worker: StackWorker): Promise<void>;
}

function waitUntilReady(url: string): Promise<true> {
  return waitFor(`${url}/readyz`, async () => ((await fetch(`${url}/readyz`)).ok ? true : undefined), 90_000);
}

export interface GatewayStackOptions {
  /** The chain-watcher's RPC, given the chain's (e.g. a fault-injecting proxy in front of it). */
  watcherRpcUrl?: (chainRpcUrl: string) => Promise<string>;
  /** Workers not started at boot (`workers.start` starts them later), e.g. settlement held until a backup is taken. */
  held?: StackWorker[];
}

export async function startGatewayStack(label: string, options: GatewayStackOptions = {}): Promise<GatewayStack> {
  // `finalized` two blocks behind the head (anvil: head − 2 × slots per epoch), as on the local stack.
  const chain = await startAnvil({ chainId: LOCAL_CHAIN_ID, blockTime: 1, slotsInAnEpoch: 1 });
  const target = { rpcUrl: chain.rpcUrl, chainId: chain.chainId };
  const token = await deployTestUsdc({ ...target, deployerKey: deployer.privateKey });
  for (const holder of [sandboxFunder, customer]) {
    await mintTestUsdc({ ...target, token, ownerKey: deployer.privateKey, to: holder.address, amount: 1_000_000n * 10n ** 6n });
  }
  const otherToken = await deployTestUsdc({ ...target, deployerKey: deployer.privateKey });
  await mintTestUsdc({ ...target, token: otherToken, ownerKey: deployer.privateKey, to: customer.address, amount: 1_000n * 10n ** 6n });
  const db = await createTestDatabase(label);
  // Each app connects as a login user of its own, a member of its app's role only, as in production.
  const databaseUrls = await ensureAppLoginUsers(TEST_DATABASE_URL, db.connectionString);
  // The sandbox stands for another company: its orders in a schema of their own.
  const sandboxSchema = `${db.schema}_sandbox`;

  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  // A seed of its own: the public test mnemonic's first accounts are anvil's funded accounts.
  const seed = generateMnemonic(english);
  const { ADDRESS_IN_KEYS = '' } = testKeyEnv();
  const sandboxSecret = randomBytes(32).toString('base64');
  const ports = {
    wallet: await findFreePort(),
    payment: await findFreePort(),
    sandbox: await findFreePort(),
    // The API apps serve /metrics on a port of their own.
    walletMetrics: await findFreePort(),
    paymentMetrics: await findFreePort(),
    sandboxMetrics: await findFreePort(),
    watcher: await findFreePort(),
    settlement: await findFreePort(),
    callbacks: await findFreePort(),
  };
  const url = (port: number) => `http://127.0.0.1:${port}`;
  const redisPrefix = `e2e-${randomUUID()}`;
  const common = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_SCHEMA: db.schema,
    REDIS_PREFIX: redisPrefix,
    CHAIN_ID: String(chain.chainId),
    CHAIN_RPC_URL: chain.rpcUrl,
    USDC_TOKEN_ADDRESS: token,
    OTHER_USDC_TOKEN_ADDRESS: otherToken,
    HOST: '127.0.0.1',
    METRICS_HOST: '127.0.0.1',
  };
  const processes: { entry: string; child: ChildProcess }[] = [];
  const startApp = (entry: string, env: Record<string, string>) => {
    const app = entry.split('/')[1] ?? entry;
    const child = spawn(process.execPath, [...appNodeArguments(app), join(ROOT, entry)], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...common, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    processes.push({ entry, child });
  };
  startApp('apps/wallet-control/src/main.ts', {
    DATABASE_URL: databaseUrls['wallet-control'],
    PORT: String(ports.wallet),
    METRICS_PORT: String(ports.walletMetrics),
    ADDRESS_IN_KEYS,
    HD_XPUB: xpubFromMnemonic(seed),
    CALLBACK_ALLOW_TEST_DOMAINS: 'true',
    // Served at /.well-known/jwks.json, as a merchant fetches them (the example shop does).
    CALLBACK_PUBLIC_KEYS: `e2e:${publicKey.export({ format: 'der', type: 'spki' }).toString('base64')}`,
    RATE_SOURCE: 'file',
    RATE_FILE,
  });
  startApp('apps/payment-redirect/src/main.ts', {
    DATABASE_URL: databaseUrls['payment-redirect'],
    PORT: String(ports.payment),
    METRICS_PORT: String(ports.paymentMetrics),
    ADDRESS_IN_KEYS,
    PUBLIC_URL: url(ports.payment),
    // No provider credentials here: the sandbox stands in for every provider.
    SANDBOX_CHECKOUT: 'on',
    SANDBOX_PROVIDER_URL: url(ports.sandbox),
    SANDBOX_SIGNING_SECRET: sandboxSecret,
    EXPLORER_TX_URL: 'none',
    RATE_SOURCE: 'file',
    RATE_FILE,
  });
  startApp('apps/sandbox-provider/src/main.ts', {
    DATABASE_URL: db.connectionString,
    DATABASE_SCHEMA: sandboxSchema,
    PORT: String(ports.sandbox),
    METRICS_PORT: String(ports.sandboxMetrics),
    SANDBOX_SIGNING_SECRET: sandboxSecret,
    SANDBOX_FUNDER_PRIVATE_KEY: sandboxFunder.privateKey,
    GATEWAY_WEBHOOK_BASE_URL: url(ports.payment),
    RATE_FILE,
  });
  const watcherRpcUrl = options.watcherRpcUrl ? await options.watcherRpcUrl(chain.rpcUrl) : chain.rpcUrl;
  const workerEnv: Record<StackWorker, Record<string, string>> = {
    'chain-watcher': {
      DATABASE_URL: databaseUrls['chain-watcher'],
      CHAIN_RPC_URL: watcherRpcUrl,
      CONFIRMATIONS: '2',
      START_BLOCK: '0',
      POLL_INTERVAL_MS: '200',
    },
    'settlement-worker': {
      DATABASE_URL: databaseUrls['settlement-worker'],
      SETTLEMENT_MNEMONIC: seed,
      RELAYER_PRIVATE_KEY: relayer.privateKey,
      PLATFORM_FEE_ADDRESS: platformFee.address,
      CONFIRMATIONS: '1',
      POLL_INTERVAL_MS: '200',
    },
    'callback-worker': {
      DATABASE_URL: databaseUrls['callback-worker'],
      CALLBACK_SIGNING_KEYS: `e2e:${privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64')}`,
      CALLBACK_ALLOWED_CIDRS: '127.0.0.0/8',
    },
  };
  const workerPort = { 'chain-watcher': ports.watcher, 'settlement-worker': ports.settlement, 'callback-worker': ports.callbacks };
  const startWorker = (worker: StackWorker, port: number, target?: WorkerTarget) =>
    startApp(`apps/${worker}/src/main.ts`, {
      ...workerEnv[worker],
      METRICS_PORT: String(port),
      ...(target ? { DATABASE_URL: target.databaseUrls[worker], DATABASE_SCHEMA: target.schema, REDIS_PREFIX: target.redisPrefix } : {}),
    });
  for (const worker of Object.keys(workerEnv) as StackWorker[]) {
    if (!options.held?.includes(worker)) startWorker(worker, workerPort[worker]);
  }
  const exited = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const workers: StackWorkers = {
    async start(worker, target) {
      // A port of its own each time: the one a stopped process held may linger in TIME_WAIT.
      const port = await findFreePort();
      startWorker(worker, port, target);
      await waitUntilReady(url(port));
    },
    async stop(worker) {
      await Promise.all(processes.filter(({ entry }) => entry === `apps/${worker}/src/main.ts`).map(({ child }) => exited(child)));
    },
  };

  const stop = async () => {
    await Promise.all(processes.map(({ child }) => exited(child)));
    await chain.stop();
    await db.pool.query(`DROP SCHEMA IF EXISTS "${sandboxSchema}" CASCADE`);
    await db.drop();
    // The apps' queues, jobs and counters: nothing else would ever remove them.
    await deleteRedisPrefix(redisPrefix);
  };
  try {
    const heldPorts = new Set((options.held ?? []).map((worker) => workerPort[worker]));
    await Promise.all(
      Object.values(ports)
        .filter((port) => !heldPorts.has(port))
        .map((port) => waitUntilReady(url(port))),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    chain,
    db,
    token,
    otherToken,
    walletControlUrl: url(ports.wallet),
    paymentUrl: url(ports.payment),
    sandboxUrl: url(ports.sandbox),
    customer,
    platformFeeAddress: platformFee.address,
    callbackPublicKey: publicKey,
    workers,
    stop,
  };
}

type Closable = { close(): Promise<unknown> } | { stop(): Promise<unknown> };

/** Closes what a test file opened, one after the other in the order given; what never opened (undefined) is passed over. */
export async function closeInOrder(...parts: (Closable | undefined)[]): Promise<void> {
  for (const part of parts) {
    if (part === undefined) continue;
    await ('stop' in part ? part.stop() : part.close());
  }
}
