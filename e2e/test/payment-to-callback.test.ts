// The whole gateway as separate processes, as in production: Create Wallet over HTTP, USDC sent on
// a real chain, the chain-watcher, the settlement-worker and the callback-worker, and a merchant
// stub that receives the signed callback. Nothing is called in-process.
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, erc20Abi, http, type Address } from 'viem';
import { english, generateMnemonic, privateKeyToAccount } from 'viem/accounts';
import { defineLocalChain, deployTestUsdc, mintTestUsdc, xpubFromMnemonic } from '@gateway/chain';
import { CALLBACK_DELIVERY_ID_HEADER, CALLBACK_SIGNATURE_HEADER, verifyCallbackSignature } from '@gateway/sdk';
import { anvilAccounts, createTestDatabase, findFreePort, startAnvil, testKeyEnv, type RunningAnvil, type TestDatabase } from '@gateway/testkit';

const ROOT = join(__dirname, '..', '..');
const [deployer, customer, relayer, platformFee] = anvilAccounts;
const PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7' as Address;

interface ReceivedCallback {
  url: string;
  signatureValid: boolean;
}

let chain: RunningAnvil;
let db: TestDatabase;
let token: Address;
let merchant: Server;
let merchantUrl: string;
let walletControlUrl: string;
const received: ReceivedCallback[] = [];
const processes: ChildProcess[] = [];

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
// A seed of its own: the public test mnemonic's first accounts are anvil's funded accounts.
const seed = generateMnemonic(english);

function startApp(entry: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, entry)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  processes.push(child);
  return child;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  chain = await startAnvil({ blockTime: 1 });
  const target = { rpcUrl: chain.rpcUrl, chainId: chain.chainId };
  token = await deployTestUsdc({ ...target, deployerKey: deployer.privateKey });
  await mintTestUsdc({ ...target, token, ownerKey: deployer.privateKey, to: customer.address, amount: 1_000n * 10n ** 6n });
  db = await createTestDatabase('e2e');

  merchant = createServer((request, response) => {
    const url = `${merchantUrl}${request.url}`;
    const verdict = verifyCallbackSignature({
      url,
      header: request.headers[CALLBACK_SIGNATURE_HEADER],
      deliveryId: request.headers[CALLBACK_DELIVERY_ID_HEADER],
      publicKeys: [publicKey],
      requireV2: true,
    });
    received.push({ url, signatureValid: verdict.ok });
    response.writeHead(200).end('*ok*');
  });
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;

  const { ADDRESS_IN_KEYS = '' } = testKeyEnv();
  const ports = { wallet: await findFreePort(), watcher: await findFreePort(), settlement: await findFreePort(), callbacks: await findFreePort() };
  const common = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: db.connectionString,
    DATABASE_SCHEMA: db.schema,
    REDIS_PREFIX: `e2e-${randomUUID()}`,
    CHAIN_ID: String(chain.chainId),
    CHAIN_RPC_URL: chain.rpcUrl,
    USDC_TOKEN_ADDRESS: token,
    HOST: '127.0.0.1',
    METRICS_HOST: '127.0.0.1',
  };
  walletControlUrl = `http://127.0.0.1:${ports.wallet}`;
  startApp('apps/wallet-control/src/main.ts', {
    ...common,
    PORT: String(ports.wallet),
    ADDRESS_IN_KEYS,
    HD_XPUB: xpubFromMnemonic(seed),
    CALLBACK_ALLOW_TEST_DOMAINS: 'true',
  });
  startApp('apps/chain-watcher/src/main.ts', { ...common, METRICS_PORT: String(ports.watcher), CONFIRMATIONS: '2', START_BLOCK: '0', POLL_INTERVAL_MS: '200' });
  startApp('apps/settlement-worker/src/main.ts', {
    ...common,
    METRICS_PORT: String(ports.settlement),
    SETTLEMENT_MNEMONIC: seed,
    RELAYER_PRIVATE_KEY: relayer.privateKey,
    PLATFORM_FEE_ADDRESS: platformFee.address,
    CONFIRMATIONS: '1',
    POLL_INTERVAL_MS: '200',
  });
  startApp('apps/callback-worker/src/main.ts', {
    ...common,
    METRICS_PORT: String(ports.callbacks),
    CALLBACK_SIGNING_KEYS: `e2e:${privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64')}`,
    CALLBACK_ALLOWED_CIDRS: '127.0.0.0/8',
  });
  for (const port of Object.values(ports)) {
    await waitFor(`readiness on ${port}`, async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok ? true : undefined));
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(
    processes.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
  await new Promise((resolve) => merchant.close(resolve));
  await chain.stop();
  await db.drop();
});

it('turns USDC sent to a temporary wallet into a payout and one signed callback with the amounts', async () => {
  const order = randomBytes(4).toString('hex');
  const callback = `${merchantUrl}/ipn?order=${order}&note=a%20b`;
  const wallet = (await (
    await fetch(`${walletControlUrl}/control/wallet.php?address=${PAYOUT}&callback=${encodeURIComponent(callback)}`)
  ).json()) as { polygon_address_in: Address; ipn_token: string };

  const viemChain = defineLocalChain({ rpcUrl: chain.rpcUrl, chainId: chain.chainId });
  const transport = http(chain.rpcUrl, { retryCount: 0 });
  const reader = createPublicClient({ chain: viemChain, transport });
  const sender = createWalletClient({ chain: viemChain, transport, account: privateKeyToAccount(customer.privateKey) });
  const txIn = await sender.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [wallet.polygon_address_in, 25_000_001n] });

  const delivered = await waitFor('the callback', async () => received.find((entry) => entry.url.includes(`order=${order}`)));
  const query = new URL(delivered.url).searchParams;
  expect(delivered.signatureValid).toBe(true);
  expect(delivered.url.startsWith(`${callback}&value_coin=`)).toBe(true);
  expect(Object.fromEntries(query)).toMatchObject({
    order,
    note: 'a b',
    value_coin: '25.000001',
    value_forwarded_coin: '24.750001',
    fee_coin: '0.25',
    coin: 'polygon_usdc',
    txid_in: txIn,
    address_in: wallet.polygon_address_in,
    ipn_token: wallet.ipn_token,
  });

  const balance = (owner: Address) => reader.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
  expect(await balance(PAYOUT)).toBe(24_750_001n);
  expect(await balance(platformFee.address)).toBe(250_000n);
  expect(await balance(wallet.polygon_address_in)).toBe(0n);
  expect(await reader.getBalance({ address: wallet.polygon_address_in })).toBe(0n);
  const { rows } = await db.pool.query('SELECT status FROM deposits WHERE tx_hash = $1', [txIn]);
  expect(rows).toEqual([{ status: 'forwarded' }]);
  // Exactly one callback for this deposit.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(received.filter((entry) => entry.url.includes(`order=${order}`))).toHaveLength(1);
}, 120_000);
