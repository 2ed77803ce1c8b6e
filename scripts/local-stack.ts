// The whole gateway on one machine: a fresh database and chain, throw-away keys, test USDC, every
// app, a demo merchant that logs the callbacks it receives, and .local/stack.json describing it all.
// `--smoke` starts everything, pays one order end to end the way a customer does (wallet → payment
// link → the sandbox checkout with a test card → USDC on chain → settlement → signed callback at
// the demo merchant), checks the amounts, and stops.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { Client } from 'pg';
import { generateMnemonic, english } from 'viem/accounts';
import { appNodeArguments } from '@gateway/config';
import { createPool, DEFAULT_ROLE_PREFIX, migrate, type DatabaseApp } from '@gateway/db';
import { deployTestUsdc, mintTestUsdc, xpubFromMnemonic } from '@gateway/chain';
import { formatUsdc, parseFiatAmount, quoteOnRamp } from '@gateway/domain';
import { verifyCallbackSignature, CALLBACK_SIGNATURE_HEADER, CALLBACK_DELIVERY_ID_HEADER } from '@gateway/sdk';
import { anvilAccounts, ensureAppLoginUsers, startAnvil, type RunningAnvil } from '@gateway/testkit';
// The sandbox's own list, so the printed cards are the ones its checkout knows.
import { TEST_CARDS } from '../apps/sandbox-provider/src/services/card-check';

const ROOT = join(__dirname, '..');
// A second stack on the same machine gets its own folder, database, Redis prefix and ports.
const LOCAL = process.env.LOCAL_STATE_DIR ?? join(ROOT, '.local');
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE_NAME = process.env.LOCAL_DATABASE ?? 'gateway_local';
const DATABASE_URL = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${DATABASE_NAME}`);
// The apps' roles (migration 014) are named <prefix>_<app>; each app connects as a login user of its
// own, a member of its role only, as in production.
const ROLE_PREFIX = process.env.DATABASE_ROLE_PREFIX || DEFAULT_ROLE_PREFIX;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REDIS_PREFIX = process.env.LOCAL_REDIS_PREFIX ?? 'gw-local';
// Anvil's own chain id, never Polygon's 137: nothing signed here is valid on mainnet, and the
// sandbox provider refuses to run against 137.
const CHAIN_ID = 31337;
const SANDBOX_SCHEMA = 'sandbox';
// Exchange rates from the sample table (no network); the sandbox converts card amounts with the same one.
const RATE_FILE = join(ROOT, 'packages', 'rates', 'data', 'local-rates.json');
const MERCHANT_LOG = join(LOCAL, 'merchant-callbacks.log');
// The demo shop's payout wallet: its orders are registered with it, and its callbacks must name it.
const DEMO_PAYOUT_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
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

// Public anvil accounts: fine on a throw-away chain, refused by every app in production.
// The sandbox pays from an account of its own, so `pnpm demo:pay` never races it for a nonce.
const [deployer, customer, relayer, platformFee, sandboxFunder] = anvilAccounts;

interface LocalKeys {
  addressInKeys: string;
  mnemonic: string;
  xpub: string;
  sandboxSigningSecret: string;
  callbackSigningKey: { kid: string; privatePkcs8: string; publicSpki: string };
}

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
  const keys = loadOrCreateKeys();
  const databaseUrls = await freshDatabase();
  clearRedisPrefix();

  // Anvil answers `finalized` as head − 2 × slots per epoch; one slot makes a block final two blocks (~2 s) later.
  chain = await startAnvil({ port: PORTS.chain, chainId: CHAIN_ID, blockTime: 1, slotsInAnEpoch: 1 });
  const token = await deployTestUsdc({ rpcUrl: chain.rpcUrl, chainId: CHAIN_ID, deployerKey: deployer.privateKey });
  for (const holder of [customer, sandboxFunder]) {
    await mintTestUsdc({ rpcUrl: chain.rpcUrl, chainId: CHAIN_ID, token, ownerKey: deployer.privateKey, to: holder.address, amount: 1_000_000n * 10n ** 6n });
  }
  merchant = await startDemoMerchant(keys.callbackSigningKey.publicSpki);

  const common = {
    NODE_ENV: 'development',
    DATABASE_ROLE_PREFIX: ROLE_PREFIX,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    HOST: '127.0.0.1',
    METRICS_HOST: '127.0.0.1',
    REDIS_URL,
    REDIS_PREFIX,
    CHAIN_ID: String(CHAIN_ID),
    CHAIN_RPC_URL: chain.rpcUrl,
    USDC_TOKEN_ADDRESS: token,
  };
  const apps: AppSpec[] = [
    {
      name: 'wallet-control',
      entry: 'apps/wallet-control/src/main.ts',
      port: PORTS.walletControl,
      env: {
        ...common,
        DATABASE_URL: databaseUrls['wallet-control'],
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
    redis: { url: REDIS_URL, prefix: REDIS_PREFIX },
    rates: { source: 'file', file: RATE_FILE, note: 'sample rates, units per 1 USD; edit the file and they apply within RATE_REFRESH_SECONDS' },
    chain: { rpcUrl: chain.rpcUrl, chainId: CHAIN_ID, blockTimeSeconds: 1, confirmations: 3 },
    token: { address: token, symbol: 'USDC', decimals: 6 },
    testAccount: { address: customer.address, privateKey: customer.privateKey, usdc: '1000000', note: 'public anvil key: local chain only' },
    relayer: { address: relayer.address },
    platformFeeAddress: platformFee.address,
    apps: Object.fromEntries(
      apps.map((app) => [app.name, { url: `http://127.0.0.1:${app.port}`, metrics: `http://127.0.0.1:${app.env.METRICS_PORT ?? app.port}/metrics` }]),
    ),
    demoMerchant: { url: `http://127.0.0.1:${PORTS.merchant}`, callbackLog: MERCHANT_LOG },
    sandboxProvider: { url: `http://127.0.0.1:${PORTS.sandbox}`, funder: sandboxFunder.address, testCards: TEST_CARDS.map(({ number, description }) => `${number} ${description}`) },
    demoPayment: await demoPaymentLinks(),
  };
  writeFileSync(join(LOCAL, 'stack.json'), `${JSON.stringify(stack, null, 2)}\n`);
  printSummary(apps, stack.chain.rpcUrl, token, stack.demoPayment);

  if (smoke) {
    await smokeTest();
    await stopAll();
    return;
  }
  await new Promise(() => undefined);
}

function loadOrCreateKeys(): LocalKeys {
  const file = join(LOCAL, 'keys.json');
  if (existsSync(file)) {
    const keys = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalKeys>;
    if (keys.callbackSigningKey) return keys as LocalKeys;
  }
  const mnemonic = generateMnemonic(english);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const keys: LocalKeys = {
    addressInKeys: `local1:${randomBytes(32).toString('base64')}`,
    mnemonic,
    xpub: xpubFromMnemonic(mnemonic),
    sandboxSigningSecret: randomBytes(32).toString('base64'),
    callbackSigningKey: {
      kid: 'local1',
      privatePkcs8: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
      publicSpki: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    },
  };
  writeFileSync(file, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  console.log(`generated throw-away local keys in ${file}`);
  return keys;
}

/**
 * The chain starts empty every run, so the database does too: old cursors and deposits would lie.
 * Migrated as the owner (creating the apps' roles if this cluster has none yet); then each app gets
 * a login user that is a member of its role only, and the sandbox one that may create its schema.
 * Returns the connection string of each.
 */
async function freshDatabase(): Promise<Record<DatabaseApp | 'sandbox', string>> {
  const admin = new Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${DATABASE_NAME}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${DATABASE_NAME}"`);
  await admin.end();
  const pool = createPool({ connectionString: DATABASE_URL, max: 1, applicationName: 'local-stack' });
  try {
    const applied = await migrate(pool, 'public', { rolePrefix: ROLE_PREFIX });
    console.log(`database ${DATABASE_NAME}: migrations applied: ${applied.join(', ')}`);
    const sandboxUser = `${ROLE_PREFIX}_sandbox_provider_login`;
    await pool.query(`DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${sandboxUser}') THEN CREATE ROLE "${sandboxUser}" LOGIN; END IF;
      EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
      END $$`);
    // It creates its schema at boot (and owns it); the gateway's tables are not granted to it.
    await pool.query(`GRANT CREATE ON DATABASE "${DATABASE_NAME}" TO "${sandboxUser}"`);
    const sandbox = new URL(DATABASE_URL);
    sandbox.username = sandboxUser;
    return { ...(await ensureAppLoginUsers(PG_ADMIN_URL, DATABASE_URL, ROLE_PREFIX)), sandbox: sandbox.toString() };
  } finally {
    await pool.end();
  }
}

function clearRedisPrefix(): void {
  const url = new URL(REDIS_URL);
  const cli = ['-h', url.hostname, '-p', url.port || '6379'];
  const keys = spawnSync('redis-cli', [...cli, '--scan', '--pattern', `${REDIS_PREFIX}:*`], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  for (let i = 0; i < keys.length; i += 500) spawnSync('redis-cli', [...cli, 'DEL', ...keys.slice(i, i + 500)]);
}

/** A merchant endpoint that checks each callback's signature and logs it, answering like a plugin. */
function startDemoMerchant(publicSpkiBase64: string): Promise<Server> {
  const publicKey = `-----BEGIN PUBLIC KEY-----\n${publicSpkiBase64}\n-----END PUBLIC KEY-----\n`;
  const server = createServer((request, response) => {
    const url = `http://127.0.0.1:${PORTS.merchant}${request.url ?? '/'}`;
    // As a shop checks: the v2 signature (a header stripped down to v1 is refused), then that the
    // money went to its own payout address (address_out), not to whoever registered its callback.
    const verdict = verifyCallbackSignature({
      url,
      header: request.headers[CALLBACK_SIGNATURE_HEADER],
      deliveryId: request.headers[CALLBACK_DELIVERY_ID_HEADER],
      publicKeys: [publicKey],
      payoutAddress: DEMO_PAYOUT_ADDRESS,
    });
    const entry = {
      receivedAt: new Date().toISOString(),
      deliveryId: request.headers[CALLBACK_DELIVERY_ID_HEADER],
      signatureValid: verdict.ok,
      query: Object.fromEntries(new URL(url).searchParams),
    };
    appendFileSync(MERCHANT_LOG, `${JSON.stringify(entry)}\n`);
    console.log(`demo merchant: callback ${entry.query.order ?? ''} value_coin=${entry.query.value_coin} ${verdict.ok ? 'verified' : `REFUSED (${verdict.reason})`}`);
    response.writeHead(verdict.ok ? 200 : 400, { 'content-type': 'text/plain' }).end(verdict.ok ? '*ok*' : verdict.reason);
  });
  return new Promise((resolve) => server.listen(PORTS.merchant, '127.0.0.1', () => resolve(server)));
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
  const deadline = Date.now() + 90_000;
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
  console.log(`  test cards: ${TEST_CARDS.map((card) => `${card.number} ${card.description}`).join('; ')}; any future expiry, any 3-digit CVC\n`);
}

/** A wallet for a demo order whose callback goes to the demo merchant, and its payment link. */
async function createDemoOrder(order: string): Promise<{ link: string; hostedLink: string }> {
  const callback = `http://127.0.0.1:${PORTS.merchant}/ipn?order=${order}&shop=demo`;
  const response = await fetch(
    `http://127.0.0.1:${PORTS.walletControl}/control/wallet.php?address=${DEMO_PAYOUT_ADDRESS}&callback=${encodeURIComponent(callback)}`,
  );
  if (!response.ok) throw new Error(`Create Wallet answered ${response.status}: ${await response.text()}`);
  const wallet = (await response.json()) as { address_in: string };
  const demoOrder = { address: wallet.address_in, amount: '25', email: 'jane@shop.io', currency: 'USD' };
  const base = `http://127.0.0.1:${PORTS.paymentRedirect}`;
  return {
    link: `${base}/process-payment.php?${new URLSearchParams({ ...demoOrder, provider: 'moonpay' })}`,
    hostedLink: `${base}/pay.php?${new URLSearchParams(demoOrder)}`,
  };
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
  return text.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code))).replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
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
  if (paid.status !== 200 || !receiptUrl) throw new Error(`smoke: paying with the test card answered ${paid.status}: ${approval.slice(0, 300)}`);
  console.log(`smoke: paid at the sandbox checkout; following ${receiptUrl}`);
  const expected = formatUsdc(quoteOnRamp(parseFiatAmount('25'), 'USD', new Map(), 150).netUsdc);
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const receipt = await (await fetch(receiptUrl)).text();
    const entry = existsSync(MERCHANT_LOG)
      ? readFileSync(MERCHANT_LOG, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((e) => e.query.order === order)
      : undefined;
    if (entry && receipt.includes('data-step="sent_to_merchant"')) {
      const q = entry.query as Record<string, string>;
      if (q.value_coin !== expected || q.coin !== 'polygon_usdc' || q.shop !== 'demo') {
        throw new Error(`smoke: callback value_coin=${q.value_coin} coin=${q.coin}, expected value_coin=${expected}`);
      }
      if (!entry.signatureValid) throw new Error('smoke: callback signature did not verify');
      console.log(`smoke test passed: the receipt says sent to the merchant; callback for ${order} arrived signed, value_coin=${q.value_coin} forwarded=${q.value_forwarded_coin} fee=${q.fee_coin}`);
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
