// The whole gateway on one machine: database, throw-away keys, every app, and .local/stack.json.
// `--smoke` starts everything, runs one Create Wallet → Process Payment round trip, and stops.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { generateMnemonic, english } from 'viem/accounts';
import { createPool, migrate } from '@gateway/db';
import { xpubFromMnemonic } from '@gateway/chain';

const ROOT = join(__dirname, '..');
const LOCAL = join(ROOT, '.local');
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE_NAME = process.env.LOCAL_DATABASE ?? 'gateway_local';
const DATABASE_URL = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${DATABASE_NAME}`);
const smoke = process.argv.includes('--smoke');

interface LocalKeys {
  addressInKeys: string;
  mnemonic: string;
  xpub: string;
  sandboxSigningSecret: string;
}

interface AppSpec {
  name: string;
  entry: string;
  port: number;
  env: Record<string, string>;
}

const children: ChildProcess[] = [];

async function main(): Promise<void> {
  mkdirSync(LOCAL, { recursive: true });
  const keys = loadOrCreateKeys();
  await ensureDatabase();

  const ports = { walletControl: port('WALLET_CONTROL_PORT', 3100), paymentRedirect: port('PAYMENT_REDIRECT_PORT', 3200), sandbox: port('SANDBOX_PROVIDER_PORT', 3300) };
  const common = { NODE_ENV: 'development', DATABASE_URL, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', ADDRESS_IN_KEYS: keys.addressInKeys, HOST: '127.0.0.1' };
  const apps: AppSpec[] = [
    {
      name: 'wallet-control',
      entry: 'apps/wallet-control/src/main.ts',
      port: ports.walletControl,
      env: { ...common, PORT: String(ports.walletControl), HD_XPUB: keys.xpub, CALLBACK_ALLOW_TEST_DOMAINS: 'true' },
    },
    {
      name: 'payment-redirect',
      entry: 'apps/payment-redirect/src/main.ts',
      port: ports.paymentRedirect,
      env: {
        ...common,
        PORT: String(ports.paymentRedirect),
        SANDBOX_PROVIDER_URL: `http://127.0.0.1:${ports.sandbox}`,
        SANDBOX_SIGNING_SECRET: keys.sandboxSigningSecret,
      },
    },
  ];
  for (const app of apps) start(app);
  await Promise.all(apps.map((app) => waitUntilReady(app)));

  const stack = {
    startedAt: new Date().toISOString(),
    database: { url: DATABASE_URL },
    apps: Object.fromEntries(apps.map((app) => [app.name, { url: `http://127.0.0.1:${app.port}`, docs: `http://127.0.0.1:${app.port}/docs` }])),
    sandboxProvider: { url: `http://127.0.0.1:${ports.sandbox}`, running: false },
  };
  writeFileSync(join(LOCAL, 'stack.json'), `${JSON.stringify(stack, null, 2)}\n`);
  printSummary(apps);

  if (smoke) {
    await smokeTest(ports.walletControl, ports.paymentRedirect);
    await stopAll();
    return;
  }
  await new Promise(() => undefined);
}

function loadOrCreateKeys(): LocalKeys {
  const file = join(LOCAL, 'keys.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as LocalKeys;
  const mnemonic = generateMnemonic(english);
  const keys: LocalKeys = {
    addressInKeys: `local1:${randomBytes(32).toString('base64')}`,
    mnemonic,
    xpub: xpubFromMnemonic(mnemonic),
    sandboxSigningSecret: randomBytes(32).toString('base64'),
  };
  writeFileSync(file, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  console.log(`generated throw-away local keys in ${file}`);
  return keys;
}

async function ensureDatabase(): Promise<void> {
  const admin = new Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
  if (rowCount === 0) await admin.query(`CREATE DATABASE "${DATABASE_NAME}"`);
  await admin.end();
  const pool = createPool({ connectionString: DATABASE_URL, max: 1, applicationName: 'local-stack' });
  const applied = await migrate(pool);
  await pool.end();
  console.log(applied.length ? `migrations applied: ${applied.join(', ')}` : 'database schema is up to date');
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
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`http://127.0.0.1:${app.port}/readyz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${app.name} did not become ready on port ${app.port}`);
}

function printSummary(apps: AppSpec[]): void {
  console.log('\nThe gateway is running:');
  for (const app of apps) console.log(`  ${app.name.padEnd(18)} http://127.0.0.1:${app.port}   (docs: /docs, metrics: /metrics)`);
  console.log(`  stack description  ${join(LOCAL, 'stack.json')}\n`);
}

async function smokeTest(walletPort: number, paymentPort: number): Promise<void> {
  const callback = `http://127.0.0.1:3400/ipn?order=${Date.now()}`;
  const wallet = await fetch(
    `http://127.0.0.1:${walletPort}/control/wallet.php?address=0x52908400098527886E0F7030069857D2E4169EE7&callback=${encodeURIComponent(callback)}`,
  ).then((r) => r.json() as Promise<{ address_in: string; polygon_address_in: string }>);
  const payment = await fetch(
    `http://127.0.0.1:${paymentPort}/process-payment.php?address=${encodeURIComponent(wallet.address_in)}&amount=25&provider=moonpay&email=jane%40shop.io&currency=USD`,
    { redirect: 'manual' },
  );
  const location = payment.headers.get('location') ?? '';
  if (payment.status !== 302 || !location.includes(wallet.polygon_address_in)) {
    throw new Error(`smoke test failed: ${payment.status} ${location}`);
  }
  console.log(`smoke test passed: wallet ${wallet.polygon_address_in} → 302 ${location.split('?')[0]}`);
}

let stopping = false;
async function stopAll(): Promise<void> {
  stopping = true;
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
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
