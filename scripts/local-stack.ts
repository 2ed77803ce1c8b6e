// The whole gateway on one machine: a fresh database and chain, throw-away keys, test USDC, every
// app, a demo merchant that logs the callbacks it receives, and .local/stack.json describing it all.
// `--smoke` starts everything, pays one order end to end the way a customer does (wallet → payment
// link → the sandbox checkout with a test card → USDC on chain → settlement → signed callback at
// the demo merchant), checks the amounts, and stops.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { appNodeArguments } from '@gateway/config';
import { DEFAULT_ROLE_PREFIX } from '@gateway/db';
import { formatUsdc, parseFiatAmount, quoteOnRamp } from '@gateway/domain';
import { applyRedisAcl, defaultRedisUserName, deleteRedisUsers, redisUrlFor, REDIS_USERS, type RedisUser } from '@gateway/queue';
import { startAnvil, type RunningAnvil } from '@gateway/testkit';
// The setup `docker compose up` does too (its init service): one module, so the two stacks agree.
import {
  createDemoOrder as createDemoShopOrder,
  deployLocalSecondUsdc,
  deployLocalTestUsdc,
  LOCAL_CHAIN_ID,
  localAccounts,
  loadOrCreateLocalKeys,
  prepareLocalDatabase,
  startDemoMerchant,
  withDatabase,
} from '@gateway/images';
// The sandbox's own list, so the printed cards are the ones its checkout knows.
import { TEST_CARDS } from '@gateway/sandbox-provider';

const ROOT = join(__dirname, '..');
// A second stack on the same machine gets its own folder, database, Redis prefix and ports.
const LOCAL = process.env.LOCAL_STATE_DIR ?? join(ROOT, '.local');
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE_NAME = process.env.LOCAL_DATABASE ?? 'gateway_local';
const DATABASE_URL = withDatabase(PG_ADMIN_URL, DATABASE_NAME);
// The apps' roles (migration 014) are named <prefix>_<app>; each app connects as a login user of its
// own, a member of its role only, as in production.
const ROLE_PREFIX = process.env.DATABASE_ROLE_PREFIX || DEFAULT_ROLE_PREFIX;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REDIS_PREFIX = process.env.LOCAL_REDIS_PREFIX ?? 'gw-local';
const CHAIN_ID = LOCAL_CHAIN_ID;
const SANDBOX_SCHEMA = 'sandbox';
// Exchange rates from the sample table (no network); the sandbox converts card amounts with the same one.
const RATE_FILE = join(ROOT, 'packages', 'rates', 'data', 'local-rates.json');
const MERCHANT_LOG = join(LOCAL, 'merchant-callbacks.log');
const smoke = process.argv.includes('--smoke');

const PORTS = {
  walletControl: port('WALLET_CONTROL_PORT', 3100),
  paymentRedirect: port('PAYMENT_REDIRECT_PORT', 3200),
  sandbox: port('SANDBOX_PROVIDER_PORT', 3300),
  merchant: port('DEMO_MERCHANT_PORT', 3400),
  chainWatcher: port('CHAIN_WATCHER_PORT', 3101),
  settlementWorker: port('SETTLEMENT_WORKER_PORT', 3102),
  callbackWorker: port('CALLBACK_WORKER_PORT', 3103),
  // The API apps' /metrics (with /healthz and /readyz again), kept off their public ports.
  walletControlMetrics: port('WALLET_CONTROL_METRICS_PORT', 3104),
  paymentRedirectMetrics: port('PAYMENT_REDIRECT_METRICS_PORT', 3105),
  sandboxMetrics: port('SANDBOX_PROVIDER_METRICS_PORT', 3106),
  chain: port('LOCAL_CHAIN_PORT', 8545),
};
const MERCHANT_URL = `http://127.0.0.1:${PORTS.merchant}`;

const { customer, relayer, platformFee, sandboxFunder } = localAccounts;

interface AppSpec {
  name: string;
  entry: string;
  port: number;
  env: Record<string, string>;
}

/** The running process of each app, replaced when a crashed app is restarted. */
const children = new Map<string, ChildProcess>();
// A crashed app comes back after 1 s, 2 s, 4 s … (at most 30 s); one that ran a minute starts over at 1 s.
const RESTART_DELAY_MS = { first: 1_000, max: 30_000, stableAfter: 60_000 };
let chain: RunningAnvil | undefined;
let merchant: Server | undefined;

async function main(): Promise<void> {
  mkdirSync(LOCAL, { recursive: true });
  const keysFile = join(LOCAL, 'keys.json');
  const { keys, created } = loadOrCreateLocalKeys(keysFile);
  if (created) console.log(`generated throw-away local keys in ${keysFile}`);
  // The chain starts empty every run, so the database does too: old cursors and deposits would lie.
  const database = await prepareLocalDatabase({ adminUrl: PG_ADMIN_URL, database: DATABASE_NAME, rolePrefix: ROLE_PREFIX, fresh: true });
  console.log(`database ${DATABASE_NAME}: migrations applied: ${database.applied.join(', ')}`);
  const databaseUrls = database.apps;
  clearRedisPrefix();
  const redisUrls = await createRedisUsers();

  // Anvil answers `finalized` as head − 2 × slots per epoch; one slot makes a block final two blocks (~2 s) later.
  chain = await startAnvil({ port: PORTS.chain, chainId: CHAIN_ID, blockTime: 1, slotsInAnEpoch: 1 });
  const token = await deployLocalTestUsdc(chain.rpcUrl, CHAIN_ID);
  const otherToken = await deployLocalSecondUsdc(chain.rpcUrl, CHAIN_ID);
  merchant = await startDemoMerchant({
    port: PORTS.merchant,
    host: '127.0.0.1',
    publicUrl: MERCHANT_URL,
    publicSpki: keys.callbackSigningKey.publicSpki,
    logFile: MERCHANT_LOG,
  });

  const common = {
    NODE_ENV: 'development',
    DATABASE_ROLE_PREFIX: ROLE_PREFIX,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    HOST: '127.0.0.1',
    METRICS_HOST: '127.0.0.1',
    REDIS_PREFIX,
    CHAIN_ID: String(CHAIN_ID),
    CHAIN_RPC_URL: chain.rpcUrl,
    USDC_TOKEN_ADDRESS: token,
    // The second test USDC plays USDC.e: its deposits are recorded and held for the operator.
    OTHER_USDC_TOKEN_ADDRESS: otherToken,
  };
  const apps: AppSpec[] = [
    {
      name: 'wallet-control',
      entry: 'apps/wallet-control/src/main.ts',
      port: PORTS.walletControl,
      env: {
        ...common,
        DATABASE_URL: databaseUrls['wallet-control'],
        REDIS_URL: redisUrls['wallet-control'],
        PORT: String(PORTS.walletControl),
        METRICS_PORT: String(PORTS.walletControlMetrics),
        ADDRESS_IN_KEYS: keys.addressInKeys,
        HD_XPUB: keys.xpub,
        CALLBACK_ALLOW_TEST_DOMAINS: 'true',
        CALLBACK_PUBLIC_KEYS: `${keys.callbackSigningKey.kid}:${keys.callbackSigningKey.publicSpki}`,
        RATE_SOURCE: 'file',
        RATE_FILE,
      },
    },
    {
      name: 'payment-redirect',
      entry: 'apps/payment-redirect/src/main.ts',
      port: PORTS.paymentRedirect,
      env: {
        ...common,
        DATABASE_URL: databaseUrls['payment-redirect'],
        REDIS_URL: redisUrls['payment-redirect'],
        PORT: String(PORTS.paymentRedirect),
        METRICS_PORT: String(PORTS.paymentRedirectMetrics),
        ADDRESS_IN_KEYS: keys.addressInKeys,
        PUBLIC_URL: `http://127.0.0.1:${PORTS.paymentRedirect}`,
        // No provider credentials here: the sandbox stands in for every provider.
        SANDBOX_CHECKOUT: 'on',
        SANDBOX_PROVIDER_URL: `http://127.0.0.1:${PORTS.sandbox}`,
        SANDBOX_SIGNING_SECRET: keys.sandboxSigningSecret,
        // A local chain has no block explorer.
        EXPLORER_TX_URL: 'none',
        RATE_SOURCE: 'file',
        RATE_FILE,
      },
    },
    {
      name: 'sandbox-provider',
      entry: 'apps/sandbox-provider/src/main.ts',
      port: PORTS.sandbox,
      env: {
        ...common,
        PORT: String(PORTS.sandbox),
        METRICS_PORT: String(PORTS.sandboxMetrics),
        // The sandbox stands for another company: its orders live apart from the gateway's, in a
        // schema its own login user owns, with no grant on the gateway's tables.
        DATABASE_URL: databaseUrls.sandbox,
        DATABASE_SCHEMA: SANDBOX_SCHEMA,
        SANDBOX_SIGNING_SECRET: keys.sandboxSigningSecret,
        SANDBOX_FUNDER_PRIVATE_KEY: sandboxFunder.privateKey,
        GATEWAY_WEBHOOK_BASE_URL: `http://127.0.0.1:${PORTS.paymentRedirect}`,
        RATE_FILE,
      },
    },
    {
      name: 'chain-watcher',
      entry: 'apps/chain-watcher/src/main.ts',
      port: PORTS.chainWatcher,
      env: {
        ...common,
        DATABASE_URL: databaseUrls['chain-watcher'],
        REDIS_URL: redisUrls['chain-watcher'],
        METRICS_PORT: String(PORTS.chainWatcher),
        CONFIRMATIONS: '3',
        START_BLOCK: '0',
        POLL_INTERVAL_MS: '1000',
      },
    },
    {
      name: 'settlement-worker',
      entry: 'apps/settlement-worker/src/main.ts',
      port: PORTS.settlementWorker,
      env: {
        ...common,
        DATABASE_URL: databaseUrls['settlement-worker'],
        REDIS_URL: redisUrls['settlement-worker'],
        METRICS_PORT: String(PORTS.settlementWorker),
        SETTLEMENT_MNEMONIC: keys.mnemonic,
        RELAYER_PRIVATE_KEY: relayer.privateKey,
        PLATFORM_FEE_ADDRESS: platformFee.address,
        CONFIRMATIONS: '1',
        POLL_INTERVAL_MS: '500',
        RECONCILE_INTERVAL_MS: '5000',
      },
    },
    {
      name: 'callback-worker',
      entry: 'apps/callback-worker/src/main.ts',
      port: PORTS.callbackWorker,
      env: {
        ...common,
        DATABASE_URL: databaseUrls['callback-worker'],
        REDIS_URL: redisUrls['callback-worker'],
        METRICS_PORT: String(PORTS.callbackWorker),
        CALLBACK_SIGNING_KEYS: `${keys.callbackSigningKey.kid}:${keys.callbackSigningKey.privatePkcs8}`,
        // Loopback callbacks (the demo merchant) are allowed on the local stack only.
        CALLBACK_ALLOWED_CIDRS: '127.0.0.0/8,::1/128',
      },
    },
  ];
  for (const app of apps) start(app);
  await Promise.all(apps.map((app) => waitUntilReady(app)));

  const stack = {
    startedAt: new Date().toISOString(),
    // url: the owner's (migrations, looking around); apps: each app's login user.
    database: { url: DATABASE_URL, rolePrefix: ROLE_PREFIX, apps: databaseUrls },
    // url: the Redis as given (its default user); apps: each app's own ACL user, operator: `gateway queues`.
    redis: { url: REDIS_URL, prefix: REDIS_PREFIX, apps: redisUrls },
    rates: {
      source: 'file',
      file: RATE_FILE,
      note: 'sample rates, units per 1 USD; edit the file and they apply within RATE_REFRESH_SECONDS',
    },
    chain: { rpcUrl: chain.rpcUrl, chainId: CHAIN_ID, blockTimeSeconds: 1, confirmations: 3 },
    token: { address: token, symbol: 'USDC', decimals: 6 },
    otherToken: { address: otherToken, symbol: 'USDC.e', decimals: 6, note: 'followed and held for the operator, never settled' },
    testAccount: {
      address: customer.address,
      privateKey: customer.privateKey,
      usdc: '1000000',
      usdcE: '1000000',
      note: 'public anvil key: local chain only',
    },
    relayer: { address: relayer.address },
    platformFeeAddress: platformFee.address,
    apps: Object.fromEntries(
      apps.map((app) => [
        app.name,
        { url: `http://127.0.0.1:${app.port}`, metrics: `http://127.0.0.1:${app.env.METRICS_PORT ?? app.port}/metrics` },
      ]),
    ),
    demoMerchant: { url: `http://127.0.0.1:${PORTS.merchant}`, callbackLog: MERCHANT_LOG },
    sandboxProvider: {
      url: `http://127.0.0.1:${PORTS.sandbox}`,
      funder: sandboxFunder.address,
      testCards: TEST_CARDS.map(({ number, description }) => `${number} ${description}`),
    },
    demoPayment: await demoPaymentLinks(),
  };
  // Renamed into place whole: a script or a test that sees the file reads all of it, never a half-written one.
  writeFileSync(join(LOCAL, 'stack.json.partial'), `${JSON.stringify(stack, null, 2)}\n`);
  renameSync(join(LOCAL, 'stack.json.partial'), join(LOCAL, 'stack.json'));
  printSummary(apps, stack.chain.rpcUrl, token, stack.demoPayment);

  if (smoke) {
    await smokeTest();
    await stopAll();
    return;
  }
  await new Promise(() => undefined);
}

/**
 * A Redis ACL user per app, named after this stack's prefix (ACL users belong to the whole server:
 * two stacks never share one), limited to its keys (packages/queue redis-acl.ts), as in
 * production. Made on the Redis the stack is given, with new passwords each run; every other user,
 * the default one included, is left as it is, and these are deleted when the stack stops.
 */
async function createRedisUsers(): Promise<Record<RedisUser, string>> {
  const users = REDIS_USERS.map((user) => ({
    user,
    name: defaultRedisUserName(REDIS_PREFIX, user),
    password: randomBytes(18).toString('base64url'),
  }));
  await applyRedisAcl(REDIS_URL, users, REDIS_PREFIX);
  redisUserNames = users.map((user) => user.name);
  return Object.fromEntries(users.map((user) => [user.user, redisUrlFor(REDIS_URL, user)])) as Record<RedisUser, string>;
}
let redisUserNames: string[] = [];

function clearRedisPrefix(): void {
  const url = new URL(REDIS_URL);
  const cli = ['-h', url.hostname, '-p', url.port || '6379'];
  const keys = spawnSync('redis-cli', [...cli, '--scan', '--pattern', `${REDIS_PREFIX}:*`], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean);
  for (let i = 0; i < keys.length; i += 500) spawnSync('redis-cli', [...cli, 'DEL', ...keys.slice(i, i + 500)]);
}

function start(app: AppSpec, restartDelayMs = RESTART_DELAY_MS.first): void {
  const startedAt = Date.now();
  const child = spawn(process.execPath, [...appNodeArguments(app.name), app.entry], {
    cwd: ROOT,
    env: { ...process.env, ...app.env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  // One app crashing must not take the chain, the database and the other apps with it.
  child.on('exit', (code, signal) => {
    if (stopping) return;
    const delay = Date.now() - startedAt > RESTART_DELAY_MS.stableAfter ? RESTART_DELAY_MS.first : restartDelayMs;
    console.error(`${app.name} exited (${signal ?? code}); restarting it in ${delay / 1000} s`);
    setTimeout(() => {
      if (!stopping) start(app, Math.min(delay * 2, RESTART_DELAY_MS.max));
    }, delay);
  });
  children.set(app.name, child);
}

async function waitUntilReady(app: AppSpec): Promise<void> {
  // Six apps compile their TypeScript at once: 10-20 s on a quiet machine, past 90 s on 2 busy cores
  // (payment-redirect, the largest, in 3 of 8 docs-check runs under a load of 18).
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${app.port}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${app.name} did not become ready on port ${app.port}`);
}

function printSummary(apps: AppSpec[], rpcUrl: string, token: string, payment: { link: string; hostedLink: string }): void {
  console.log('\nThe gateway is running:');
  for (const app of apps) console.log(`  ${app.name.padEnd(18)} http://127.0.0.1:${app.port}`);
  console.log(`  ${'demo merchant'.padEnd(18)} http://127.0.0.1:${PORTS.merchant}   (callbacks logged to ${MERCHANT_LOG})`);
  console.log(`  ${'local chain'.padEnd(18)} ${rpcUrl}   (chain id ${CHAIN_ID}, test USDC ${token})`);
  console.log(`  ${'test account'.padEnd(18)} ${customer.address} holds 1,000,000 test USDC`);
  console.log(`  stack description  ${join(LOCAL, 'stack.json')}`);
  console.log('  pay a temporary wallet: pnpm demo:pay <polygon_address_in> <amount>\n');
  console.log('Pay the demo order (25 USD) in a browser, as a customer would:');
  console.log(`  ${payment.link}`);
  console.log('or let the customer choose the provider (hosted checkout):');
  console.log(`  ${payment.hostedLink}`);
  console.log(
    `  test cards: ${TEST_CARDS.map((card) => `${card.number} ${card.description}`).join('; ')}; any future expiry, any 3-digit CVC\n`,
  );
}

/** A wallet for a demo order whose callback goes to the demo merchant, and its payment links. */
function createDemoOrder(order: string): Promise<{ link: string; hostedLink: string }> {
  return createDemoShopOrder({
    walletControlUrl: `http://127.0.0.1:${PORTS.walletControl}`,
    paymentUrl: `http://127.0.0.1:${PORTS.paymentRedirect}`,
    merchantUrl: MERCHANT_URL,
    order,
  });
}

function demoPaymentLinks(): Promise<{ link: string; hostedLink: string }> {
  return createDemoOrder(`demo-${Date.now()}`);
}

/** The inputs of the checkout form: hidden ones as given, card fields found by their autocomplete token. */
function fillCheckoutForm(html: string, card: Record<string, string>): URLSearchParams {
  const form = new URLSearchParams();
  for (const [input] of html.matchAll(/<input\b[^>]*>/g)) {
    const attribute = (name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(input)?.[1];
    const name = attribute('name');
    if (!name) continue;
    const autocomplete = attribute('autocomplete');
    const value = autocomplete && autocomplete in card ? card[autocomplete] : attribute('value');
    form.append(name, decodeHtml(value ?? ''));
  }
  return form;
}

function decodeHtml(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

async function smokeTest(): Promise<void> {
  const order = `smoke-${Date.now()}`;
  const { link } = await createDemoOrder(order);
  const redirect = await fetch(link, { redirect: 'manual', headers: { accept: 'text/html' } });
  const checkoutUrl = redirect.headers.get('location');
  if (redirect.status !== 302 || !checkoutUrl) throw new Error(`smoke: Process Payment answered ${redirect.status}`);
  const checkout = await fetch(checkoutUrl);
  if (checkout.status !== 200) throw new Error(`smoke: the sandbox checkout answered ${checkout.status}`);
  const expiry = new Date(Date.now() + 400 * 86_400_000);
  const form = fillCheckoutForm(await checkout.text(), {
    'cc-name': 'Jane Doe',
    'cc-number': '4242 4242 4242 4242',
    'cc-exp': `${String(expiry.getUTCMonth() + 1).padStart(2, '0')}/${String(expiry.getUTCFullYear() % 100).padStart(2, '0')}`,
    'cc-csc': '123',
  });
  const paid = await fetch(new URL('/checkout', checkoutUrl), { method: 'POST', body: form, redirect: 'manual' });
  // The approval page sends the browser on to the receipt by itself (a meta refresh).
  const approval = await paid.text();
  const receiptUrl = decodeHtml(/<meta http-equiv="refresh" content="\d+;url=([^"]+)">/.exec(approval)?.[1] ?? '');
  if (paid.status !== 200 || !receiptUrl)
    throw new Error(`smoke: paying with the test card answered ${paid.status}: ${approval.slice(0, 300)}`);
  console.log(`smoke: paid at the sandbox checkout; following ${receiptUrl}`);
  const expected = formatUsdc(quoteOnRamp(parseFiatAmount('25'), 'USD', new Map(), 150).netUsdc);
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const receipt = await (await fetch(receiptUrl)).text();
    const entry = existsSync(MERCHANT_LOG)
      ? readFileSync(MERCHANT_LOG, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
          .find((e) => e.query.order === order)
      : undefined;
    if (entry && receipt.includes('data-step="sent_to_merchant"')) {
      const q = entry.query as Record<string, string>;
      if (q.value_coin !== expected || q.coin !== 'polygon_usdc' || q.shop !== 'demo') {
        throw new Error(`smoke: callback value_coin=${q.value_coin} coin=${q.coin}, expected value_coin=${expected}`);
      }
      if (!entry.signatureValid) throw new Error('smoke: callback signature did not verify');
      console.log(
        `smoke test passed: the receipt says sent to the merchant; callback for ${order} arrived signed, value_coin=${q.value_coin} ` +
          `forwarded=${q.value_forwarded_coin} fee=${q.fee_coin}`,
      );
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('smoke: the receipt did not reach "sent to the merchant" with a callback within 120 s');
}

let stopping = false;
async function stopAll(): Promise<void> {
  stopping = true;
  await Promise.all(
    [...children.values()].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
  merchant?.close();
  await chain?.stop();
  await deleteRedisUsers(REDIS_URL, redisUserNames).catch((error: Error) => console.error(`Redis users not deleted: ${error.message}`));
}

function port(name: string, fallback: number): number {
  return Number(process.env[name] ?? fallback);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void stopAll().then(() => process.exit(0)));
}

main().catch(async (error: Error) => {
  console.error(`local stack failed: ${error.message}`);
  await stopAll();
  process.exit(1);
});
