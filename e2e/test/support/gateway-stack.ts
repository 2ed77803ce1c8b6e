// Every app of the gateway as its own process, as in production, on a fresh PostgreSQL schema and
// a local chain, with the sandbox provider standing in for the on-ramps. Nothing runs in-process.
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Address } from 'viem';
import { english, generateMnemonic } from 'viem/accounts';
import { deployTestUsdc, mintTestUsdc, xpubFromMnemonic } from '@gateway/chain';
import { appEntry, appNodeArguments, type AppRuntime } from '@gateway/config';
import {
  anvilAccounts,
  createTestSchema,
  deleteRedisPrefix,
  findFreePort,
  startAnvil,
  stopProcess,
  TEST_DATABASE_URL,
  type RunningAnvil,
  waitFor,
  waitForReadyz,
} from '@gateway/testkit';
import { createTestDatabase, testKeyEnv, type TestDatabase } from '@gateway/app-testkit';
import { createPool, type DatabaseApp, ensureAppLoginUsers } from '@gateway/db';
import { type Front, startFront } from './front';

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

/** The gateway's own apps, each its own process; the sandbox provider stands apart (another company). */
export const GATEWAY_APPS = ['wallet-control', 'payment-redirect', 'chain-watcher', 'settlement-worker', 'callback-worker'] as const;
export type GatewayApp = (typeof GATEWAY_APPS)[number];
const API_APPS = new Set<GatewayApp>(['wallet-control', 'payment-redirect']);

/** Where an app's code comes from: a checkout's root and whether its apps run from sources (tsx) or dist. */
export interface AppRelease {
  root: string;
  runtime: AppRuntime;
}

/** This checkout, from its sources, as every other e2e test runs it. */
export const THIS_CHECKOUT: AppRelease = { root: ROOT, runtime: 'source' };

/** One running process of an app: its release, its own ports, and its exit. */
export interface Replica {
  app: GatewayApp;
  release: AppRelease;
  child: ChildProcess;
  /** The app's public URL (API apps), else its /healthz, /readyz and /metrics URL. */
  url: string;
  /** The URL of its /readyz. */
  readyUrl: string;
  /** Resolves once the process has exited. */
  exited: Promise<void>;
}

export interface GatewayStackOptions {
  /** The chain-watcher's RPC, given the chain's (e.g. a fault-injecting proxy in front of it). */
  watcherRpcUrl?: (chainRpcUrl: string) => Promise<string>;
  /** The gateway apps' code at start (the sandbox provider is always this checkout's). */
  release?: AppRelease;
  /** Makes the schema's tables; this checkout's migrations when left out. */
  migrate?: (schema: string) => Promise<unknown>;
  /**
   * Puts a front before each API app (as the Ingress or the TLS proxy is), so a new replica can
   * take over its URL (route) while the old one drains.
   */
  fronts?: boolean;
  /** Settings added to (or replacing) an app's. */
  settings?: Partial<Record<GatewayApp, Record<string, string>>>;
  /** Workers not started at boot (`workers.start` starts them later), e.g. settlement held until a backup is taken. */
  held?: StackWorker[];
}

/** Replicas beside the first: started, routed to and stopped one by one, as a rolling update does. */
export interface ReplicaControl {
  /** The replicas of `app` still running, oldest first. */
  replicas(app: GatewayApp): Replica[];
  /** Starts a replica of `app` from `release` (ports of its own) and waits until its /readyz answers 200. */
  startReplica(app: GatewayApp, release: AppRelease): Promise<Replica>;
  /** Sends an API app's new requests to `replica` from now on (requires `fronts`). */
  route(replica: Replica): void;
  /** SIGTERM, then waits for the exit (SIGKILL after `graceMs`). */
  stopReplica(replica: Replica, graceMs?: number): Promise<void>;
  /** The environment each app is started with (its database URL, Redis prefix …), for the operator CLI. */
  settings(app: GatewayApp): Record<string, string>;
  redisPrefix: string;
}

export async function startGatewayStack(label: string, options: GatewayStackOptions = {}): Promise<GatewayStack & ReplicaControl> {
  // `finalized` two blocks behind the head (anvil: head − 2 × slots per epoch), as on the local stack.
  const chain = await startAnvil({ chainId: LOCAL_CHAIN_ID, blockTime: 1, slotsInAnEpoch: 1 });
  const target = { rpcUrl: chain.rpcUrl, chainId: chain.chainId };
  const token = await deployTestUsdc({ ...target, deployerKey: deployer.privateKey });
  for (const holder of [sandboxFunder, customer]) {
    await mintTestUsdc({ ...target, token, ownerKey: deployer.privateKey, to: holder.address, amount: 1_000_000n * 10n ** 6n });
  }
  const otherToken = await deployTestUsdc({ ...target, deployerKey: deployer.privateKey });
  await mintTestUsdc({ ...target, token: otherToken, ownerKey: deployer.privateKey, to: customer.address, amount: 1_000n * 10n ** 6n });
  const { migrate: migrateWith } = options;
  const db = migrateWith
    ? await createTestSchema<DatabaseApp>(label, { createPool, migrate: (_pool, schema) => migrateWith(schema) })
    : await createTestDatabase(label);
  // Each app connects as a login user of its own, a member of its app's role only, as in production.
  const databaseUrls = await ensureAppLoginUsers(TEST_DATABASE_URL, db.connectionString);
  // The sandbox stands for another company: its orders in a schema of their own.
  const sandboxSchema = `${db.schema}_sandbox`;

  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  // A seed of its own: the public test mnemonic's first accounts are anvil's funded accounts.
  const seed = generateMnemonic(english);
  const { ADDRESS_IN_KEYS = '' } = testKeyEnv();
  const sandboxSecret = randomBytes(32).toString('base64');
  const url = (port: number) => `http://127.0.0.1:${port}`;
  const sandboxPort = await findFreePort();
  const sandboxMetricsPort = await findFreePort();
  // The API apps' URLs: their first replica's ports, or the fronts' that stay while replicas change.
  const publicPorts = { 'wallet-control': await findFreePort(), 'payment-redirect': await findFreePort() };
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
  const watcherRpcUrl = options.watcherRpcUrl ? await options.watcherRpcUrl(chain.rpcUrl) : chain.rpcUrl;
  const settings: Record<GatewayApp, Record<string, string>> = {
    'wallet-control': {
      DATABASE_URL: databaseUrls['wallet-control'],
      ADDRESS_IN_KEYS,
      HD_XPUB: xpubFromMnemonic(seed),
      CALLBACK_ALLOW_TEST_DOMAINS: 'true',
      // Served at /.well-known/jwks.json, as a merchant fetches them (the example shop does).
      CALLBACK_PUBLIC_KEYS: `e2e:${publicKey.export({ format: 'der', type: 'spki' }).toString('base64')}`,
      RATE_SOURCE: 'file',
      RATE_FILE,
    },
    'payment-redirect': {
      DATABASE_URL: databaseUrls['payment-redirect'],
      ADDRESS_IN_KEYS,
      PUBLIC_URL: url(publicPorts['payment-redirect']),
      // No provider credentials here: the sandbox stands in for every provider.
      SANDBOX_CHECKOUT: 'on',
      SANDBOX_PROVIDER_URL: url(sandboxPort),
      SANDBOX_SIGNING_SECRET: sandboxSecret,
      EXPLORER_TX_URL: 'none',
      RATE_SOURCE: 'file',
      RATE_FILE,
    },
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
  for (const app of GATEWAY_APPS) Object.assign(settings[app], options.settings?.[app]);

  const spawnNode = (root: string, nodeArguments: string[], env: Record<string, string>) =>
    spawn(process.execPath, nodeArguments, {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...common, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  const sandbox = spawnNode(ROOT, [...appNodeArguments('sandbox-provider'), join(ROOT, appEntry('sandbox-provider'))], {
    DATABASE_URL: db.connectionString,
    DATABASE_SCHEMA: sandboxSchema,
    PORT: String(sandboxPort),
    METRICS_PORT: String(sandboxMetricsPort),
    SANDBOX_SIGNING_SECRET: sandboxSecret,
    SANDBOX_FUNDER_PRIVATE_KEY: sandboxFunder.privateKey,
    GATEWAY_WEBHOOK_BASE_URL: url(publicPorts['payment-redirect']),
    RATE_FILE,
  });

  const running = new Map<GatewayApp, Replica[]>(GATEWAY_APPS.map((app) => [app, []]));
  const fronts = new Map<GatewayApp, Front>();
  const launch = async (app: GatewayApp, release: AppRelease, publicPort?: number, target?: WorkerTarget): Promise<Replica> => {
    const metricsPort = await findFreePort();
    const port = API_APPS.has(app) ? (publicPort ?? (await findFreePort())) : undefined;
    const child = spawnNode(release.root, [...appNodeArguments(app, release.runtime), join(release.root, appEntry(app, release.runtime))], {
      ...settings[app],
      ...(target && !API_APPS.has(app)
        ? { DATABASE_URL: target.databaseUrls[app as StackWorker], DATABASE_SCHEMA: target.schema, REDIS_PREFIX: target.redisPrefix }
        : {}),
      METRICS_PORT: String(metricsPort),
      ...(port === undefined ? {} : { PORT: String(port) }),
    });
    const replica: Replica = {
      app,
      release,
      child,
      url: url(port ?? metricsPort),
      readyUrl: `${url(metricsPort)}/readyz`,
      exited: new Promise((resolve) => child.once('exit', () => resolve())),
    };
    running.get(app)?.push(replica);
    void replica.exited.then(() =>
      running.set(
        app,
        (running.get(app) ?? []).filter((other) => other !== replica),
      ),
    );
    return replica;
  };
  const ready = (replica: Replica) => waitForReadyz(replica.app, replica.readyUrl.replace(/\/readyz$/, ''), replica.child, 90_000);
  const stopReplica = async (replica: Replica, graceMs = 30_000) => stopProcess(replica.child, graceMs);

  const startRelease = options.release ?? THIS_CHECKOUT;
  const held = new Set<GatewayApp>(options.held ?? []);
  const first = await Promise.all(
    GATEWAY_APPS.filter((app) => !held.has(app)).map((app) => {
      const publicPort = app === 'wallet-control' || app === 'payment-redirect' ? publicPorts[app] : undefined;
      return launch(app, startRelease, options.fronts ? undefined : publicPort);
    }),
  );
  if (options.fronts) {
    for (const app of ['wallet-control', 'payment-redirect'] as const) {
      const replica = first.find((candidate) => candidate.app === app);
      if (replica) fronts.set(app, await startFront(publicPorts[app], replica.url));
    }
  }

  const stop = async () => {
    const replicas = [...running.values()].flat();
    await Promise.all(replicas.map((replica) => stopProcess(replica.child, 10_000)));
    await stopProcess(sandbox, 10_000);
    await Promise.all([...fronts.values()].map((front) => front.close()));
    await chain.stop();
    await db.pool.query(`DROP SCHEMA IF EXISTS "${sandboxSchema}" CASCADE`);
    await db.drop();
    // The apps' queues, jobs and counters: nothing else would ever remove them.
    await deleteRedisPrefix(redisPrefix);
  };
  try {
    await Promise.all([
      ...first.map(ready),
      waitUntilReady(url(sandboxPort)),
      waitUntilReady(url(sandboxMetricsPort)),
      ...Object.values(publicPorts).map((port) => waitUntilReady(url(port))),
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    chain,
    db,
    token,
    otherToken,
    walletControlUrl: url(publicPorts['wallet-control']),
    paymentUrl: url(publicPorts['payment-redirect']),
    sandboxUrl: url(sandboxPort),
    customer,
    platformFeeAddress: platformFee.address,
    callbackPublicKey: publicKey,
    stop,
    redisPrefix,
    replicas: (app) => [...(running.get(app) ?? [])],
    async startReplica(app, release) {
      const replica = await launch(app, release);
      await ready(replica);
      return replica;
    },
    route(replica) {
      const front = fronts.get(replica.app);
      if (!front) throw new Error(`${replica.app} has no front: start the stack with fronts: true`);
      front.route(replica.url);
    },
    stopReplica,
    settings: (app) => ({ ...common, ...settings[app] }),
    workers: {
      async start(worker, target) {
        await ready(await launch(worker, THIS_CHECKOUT, undefined, target));
      },
      async stop(worker) {
        await Promise.all((running.get(worker) ?? []).map((replica) => stopReplica(replica)));
      },
    },
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
