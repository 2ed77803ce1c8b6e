// The whole gateway on one machine: a fresh database and chain, throw-away keys, test USDC, every
// app, a demo merchant that logs the callbacks it receives, and .local/stack.json describing it all.
// `--smoke` starts everything, pays one order end to end (wallet → USDC → settlement → signed
// callback at the demo merchant), checks the amounts, and stops.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { Client } from 'pg';
import { generateMnemonic, english } from 'viem/accounts';
import { createPool, migrate } from '@gateway/db';
import { deployTestUsdc, mintTestUsdc, xpubFromMnemonic } from '@gateway/chain';
import { verifyCallbackSignature, CALLBACK_SIGNATURE_HEADER, CALLBACK_DELIVERY_ID_HEADER } from '@gateway/sdk';
import { anvilAccounts, startAnvil, type RunningAnvil } from '@gateway/testkit';
import { sendTestUsdc } from './send-test-usdc';

const ROOT = join(__dirname, '..');
const LOCAL = join(ROOT, '.local');
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE_NAME = process.env.LOCAL_DATABASE ?? 'gateway_local';
const DATABASE_URL = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${DATABASE_NAME}`);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REDIS_PREFIX = 'gw-local';
const CHAIN_ID = 137;
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
  chain: port('LOCAL_CHAIN_PORT', 8545),
};

// Public anvil accounts: fine on a throw-away chain, refused by every app in production.
const [deployer, customer, relayer, platformFee] = anvilAccounts;

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

const children: ChildProcess[] = [];
let chain: RunningAnvil | undefined;
let merchant: Server | undefined;

async function main(): Promise<void> {
  mkdirSync(LOCAL, { recursive: true });
  const keys = loadOrCreateKeys();
  await freshDatabase();
  clearRedisPrefix();

  chain = await startAnvil({ port: PORTS.chain, chainId: CHAIN_ID, blockTime: 1 });
  const token = await deployTestUsdc({ rpcUrl: chain.rpcUrl, chainId: CHAIN_ID, deployerKey: deployer.privateKey });
  await mintTestUsdc({ rpcUrl: chain.rpcUrl, chainId: CHAIN_ID, token, ownerKey: deployer.privateKey, to: customer.address, amount: 1_000_000n * 10n ** 6n });
  merchant = await startDemoMerchant(keys.callbackSigningKey.publicSpki);

  const common = {
    NODE_ENV: 'development',
    DATABASE_URL,
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
        PORT: String(PORTS.walletControl),
        ADDRESS_IN_KEYS: keys.addressInKeys,
        HD_XPUB: keys.xpub,
        CALLBACK_ALLOW_TEST_DOMAINS: 'true',
        CALLBACK_PUBLIC_KEYS: `${keys.callbackSigningKey.kid}:${keys.callbackSigningKey.publicSpki}`,
      },
    },
    {
      name: 'payment-redirect',
      entry: 'apps/payment-redirect/src/main.ts',
      port: PORTS.paymentRedirect,
      env: {
        ...common,
        PORT: String(PORTS.paymentRedirect),
        ADDRESS_IN_KEYS: keys.addressInKeys,
        SANDBOX_PROVIDER_URL: `http://127.0.0.1:${PORTS.sandbox}`,
        SANDBOX_SIGNING_SECRET: keys.sandboxSigningSecret,
      },
    },
    {
      name: 'chain-watcher',
      entry: 'apps/chain-watcher/src/main.ts',
      port: PORTS.chainWatcher,
      env: { ...common, METRICS_PORT: String(PORTS.chainWatcher), CONFIRMATIONS: '3', START_BLOCK: '0', POLL_INTERVAL_MS: '1000' },
    },
    {
      name: 'settlement-worker',
      entry: 'apps/settlement-worker/src/main.ts',
      port: PORTS.settlementWorker,
      env: {
        ...common,
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
    database: { url: DATABASE_URL },
    redis: { url: REDIS_URL, prefix: REDIS_PREFIX },
    chain: { rpcUrl: chain.rpcUrl, chainId: CHAIN_ID, blockTimeSeconds: 1, confirmations: 3 },
    token: { address: token, symbol: 'USDC', decimals: 6 },
    testAccount: { address: customer.address, privateKey: customer.privateKey, usdc: '1000000', note: 'public anvil key: local chain only' },
    relayer: { address: relayer.address },
    platformFeeAddress: platformFee.address,
    apps: Object.fromEntries(apps.map((app) => [app.name, { url: `http://127.0.0.1:${app.port}` }])),
    demoMerchant: { url: `http://127.0.0.1:${PORTS.merchant}`, callbackLog: MERCHANT_LOG },
    sandboxProvider: { url: `http://127.0.0.1:${PORTS.sandbox}`, running: false },
  };
  writeFileSync(join(LOCAL, 'stack.json'), `${JSON.stringify(stack, null, 2)}\n`);
  printSummary(apps, stack.chain.rpcUrl, token);

  if (smoke) {
    await smokeTest(token);
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

/** The chain starts empty every run, so the database does too: old cursors and deposits would lie. */
async function freshDatabase(): Promise<void> {
  const admin = new Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${DATABASE_NAME}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${DATABASE_NAME}"`);
  await admin.end();
  const pool = createPool({ connectionString: DATABASE_URL, max: 1, applicationName: 'local-stack' });
  const applied = await migrate(pool);
  await pool.end();
  console.log(`database ${DATABASE_NAME}: migrations applied: ${applied.join(', ')}`);
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
    const verdict = verifyCallbackSignature({ url, header: request.headers[CALLBACK_SIGNATURE_HEADER], publicKeys: [publicKey] });
    const entry = {
      receivedAt: new Date().toISOString(),
      deliveryId: request.headers[CALLBACK_DELIVERY_ID_HEADER],
      signatureValid: verdict.ok,
      query: Object.fromEntries(new URL(url).searchParams),
    };
    appendFileSync(MERCHANT_LOG, `${JSON.stringify(entry)}\n`);
    console.log(`demo merchant: callback ${entry.query.order ?? ''} value_coin=${entry.query.value_coin} signature ${verdict.ok ? 'valid' : 'INVALID'}`);
    response.writeHead(verdict.ok ? 200 : 400, { 'content-type': 'text/plain' }).end(verdict.ok ? '*ok*' : 'bad signature');
  });
  return new Promise((resolve) => server.listen(PORTS.merchant, '127.0.0.1', () => resolve(server)));
}

function start(app: AppSpec): void {
  const child = spawn(process.execPath, ['--import', 'tsx', app.entry], {
    cwd: ROOT,
    env: { ...process.env, ...app.env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${app.name} exited (${signal ?? code}); stopping the stack`);
      void stopAll().then(() => process.exit(1));
    }
  });
  children.push(child);
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

function printSummary(apps: AppSpec[], rpcUrl: string, token: string): void {
  console.log('\nThe gateway is running:');
  for (const app of apps) console.log(`  ${app.name.padEnd(18)} http://127.0.0.1:${app.port}`);
  console.log(`  ${'demo merchant'.padEnd(18)} http://127.0.0.1:${PORTS.merchant}   (callbacks logged to ${MERCHANT_LOG})`);
  console.log(`  ${'local chain'.padEnd(18)} ${rpcUrl}   (chain id ${CHAIN_ID}, test USDC ${token})`);
  console.log(`  ${'test account'.padEnd(18)} ${customer.address} holds 1,000,000 test USDC`);
  console.log(`  stack description  ${join(LOCAL, 'stack.json')}`);
  console.log('  pay a temporary wallet: pnpm demo:pay <polygon_address_in> <amount>\n');
}

async function smokeTest(token: `0x${string}`): Promise<void> {
  const order = `smoke-${Date.now()}`;
  const callback = `http://127.0.0.1:${PORTS.merchant}/ipn?order=${order}&shop=demo`;
  const wallet = (await fetch(
    `http://127.0.0.1:${PORTS.walletControl}/control/wallet.php?address=0x52908400098527886E0F7030069857D2E4169EE7&callback=${encodeURIComponent(callback)}`,
  ).then((r) => r.json())) as { address_in: string; polygon_address_in: `0x${string}` };
  const payment = await fetch(
    `http://127.0.0.1:${PORTS.paymentRedirect}/process-payment.php?address=${encodeURIComponent(wallet.address_in)}&amount=25&provider=moonpay&email=jane%40shop.io&currency=USD`,
    { redirect: 'manual' },
  );
  // The checkout link carries the temporary address in lower case (valid hex, no checksum).
  const location = (payment.headers.get('location') ?? '').toLowerCase();
  if (payment.status !== 302 || !location.includes(wallet.polygon_address_in.toLowerCase())) {
    throw new Error(`smoke: Process Payment answered ${payment.status}`);
  }
  const txHash = await sendTestUsdc({ rpcUrl: chain!.rpcUrl, chainId: CHAIN_ID, token, fromKey: customer.privateKey, to: wallet.polygon_address_in, amount: '25' });
  console.log(`smoke: sent 25 test USDC to ${wallet.polygon_address_in} in ${txHash}; waiting for the callback…`);
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const entry = existsSync(MERCHANT_LOG)
      ? readFileSync(MERCHANT_LOG, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((e) => e.query.order === order)
      : undefined;
    if (entry) {
      const q = entry.query as Record<string, string>;
      const expected = { value_coin: '25', value_forwarded_coin: '24.75', fee_coin: '0.25', coin: 'polygon_usdc', shop: 'demo', txid_in: txHash };
      for (const [name, value] of Object.entries(expected)) {
        if (q[name] !== value) throw new Error(`smoke: callback ${name}=${q[name]}, expected ${value}`);
      }
      if (!entry.signatureValid) throw new Error('smoke: callback signature did not verify');
      console.log(`smoke test passed: callback for ${order} arrived signed, value_coin=${q.value_coin} forwarded=${q.value_forwarded_coin} fee=${q.fee_coin}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('smoke: no callback within 120 s');
}

let stopping = false;
async function stopAll(): Promise<void> {
  stopping = true;
  await Promise.all(
    children.map(
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
