import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { createPublicClient, createWalletClient, erc20Abi, http, type Address, type Hex } from 'viem';
import { english, generateMnemonic, generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  defineLocalChain,
  deployTestUsdc,
  encodeTransferWithAuthorization,
  mintTestUsdc,
  readTokenDomain,
  signTransferAuthorization,
  TemporaryAddressDeriver,
  xpubFromMnemonic,
} from '@gateway/chain';
import { payoutAuthorizationNonce } from '@gateway/domain';
import { createTestDatabase, runGateway, seedDelivery, seedDeposit, seedPayout, seedWallet, type TestDatabase } from '@gateway/app-testkit';
import { anvilAccounts, startAnvil, TEST_DATABASE_URL, type RunningAnvil } from '@gateway/testkit';

// `gateway restore check` against a database restored with pg_restore from a pg_dump, and a local
// chain that went on after the dump: each kind of finding, its advice, exit 4; nothing found, exit 0;
// bad input exit 2; a chain it cannot read exit 1.

const run = promisify(execFile);
const [deployer, customer, relayer] = anvilAccounts;
let chain: RunningAnvil;
let db: TestDatabase;
let token: Address;
let scratch: string;
const restoredDatabase = `gw_restore_check_${randomBytes(5).toString('hex')}`;
const temporary = privateKeyToAccount(generatePrivateKey());
const xpub = xpubFromMnemonic(generateMnemonic(english));

function databaseUrl(name: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const env = (databaseUrlOf = db.connectionString) => ({
  DATABASE_URL: databaseUrlOf,
  DATABASE_SCHEMA: db.schema,
  CHAIN_RPC_URL: chain.rpcUrl,
  CHAIN_ID: String(chain.chainId),
  USDC_TOKEN_ADDRESS: token,
  HD_XPUB: xpub,
});

beforeAll(async () => {
  chain = await startAnvil({ chainId: 31337 });
  token = await deployTestUsdc({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, deployerKey: deployer!.privateKey });
  await mintTestUsdc({
    rpcUrl: chain.rpcUrl,
    chainId: chain.chainId,
    token,
    ownerKey: deployer!.privateKey,
    to: customer!.address,
    amount: 1_000n * 10n ** 6n,
  });
  db = await createTestDatabase('cli_restore_check');
  scratch = await mkdtemp(join(tmpdir(), 'gateway-restore-check-'));
}, 60_000);

afterAll(async () => {
  await admin(`DROP DATABASE IF EXISTS "${restoredDatabase}" WITH (FORCE)`);
  await db?.drop();
  await chain?.stop();
  await rm(scratch, { recursive: true, force: true });
});

it('lists what a restored database does not know of the chain, with what to do, and exits 4; 0 when they agree', async () => {
  const localChain = defineLocalChain({ rpcUrl: chain.rpcUrl, chainId: chain.chainId });
  const reader = createPublicClient({ chain: localChain, transport: http(chain.rpcUrl) });
  const pay = async (from: Hex, to: Address, data: Hex | undefined, amount?: bigint) => {
    const sender = createWalletClient({ chain: localChain, transport: http(chain.rpcUrl), account: privateKeyToAccount(from) });
    const hash =
      data === undefined
        ? await sender.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [to, amount ?? 0n] })
        : await sender.sendTransaction({ to, data });
    return reader.waitForTransactionReceipt({ hash });
  };

  // A deposit the original gateway saw and planned, its two legs not sent yet; the watcher's checkpoint at the head.
  const { id: walletId } = await seedWallet(db.pool, { polygonAddress: temporary.address, hdIndex: 7 });
  const first = await pay(customer!.privateKey, temporary.address, undefined, 10_000_000n);
  const { id: depositId } = await seedDeposit(db.pool, {
    walletId,
    chainId: chain.chainId,
    txHash: first.transactionHash,
    logIndex: first.logs[0]!.logIndex,
    blockNumber: first.blockNumber,
    amount: 10_000_000n,
    status: 'forwarding',
  });
  const merchant = `0x${randomBytes(20).toString('hex')}` as Address;
  const nonceOf = (leg: 'merchant' | 'platform') =>
    payoutAuthorizationNonce({
      chainId: chain.chainId,
      depositTxHash: first.transactionHash,
      depositLogIndex: first.logs[0]!.logIndex,
      leg,
      generation: 0,
    });
  await seedPayout(db.pool, {
    depositId,
    leg: 'merchant',
    fromAddress: temporary.address,
    toAddress: merchant,
    amount: 9_900_000n,
    authorizationNonce: nonceOf('merchant'),
  });
  const head = await reader.getBlockNumber();
  await db.pool.query(`INSERT INTO chain_cursors (chain_id, token, block_number, block_hash) VALUES ($1, $2, $3, $4)`, [
    chain.chainId,
    token.toLowerCase(),
    head.toString(),
    `0x${'ab'.repeat(32)}`,
  ]);
  await db.pool.query(`INSERT INTO relayer_nonces (chain_id, relayer_address, next_nonce) VALUES ($1, $2, $3)`, [
    chain.chainId,
    relayer!.address.toLowerCase(),
    String(await reader.getTransactionCount({ address: relayer!.address })),
  ]);

  const agreeing = await runGateway(['restore', 'check'], env());
  expect(agreeing.stderr).toBe('');
  expect(agreeing.code).toBe(0);
  expect(agreeing.stdout).toContain('nothing found: the database and the chain agree');

  // A callback the backup holds as pending, then the backup.
  const deliveryId = await seedDelivery(db.pool, { walletId, depositId: null, status: 'pending' });
  const dump = join(scratch, 'gateway.dump');
  await run('pg_dump', ['--format=custom', `--schema=${db.schema}`, `--file=${dump}`, `--dbname=${TEST_DATABASE_URL}`]);

  // After the backup, on chain: the merchant's leg paid under its nonce, the platform's leg planned and
  // paid too (the database never heard of it), and a new deposit.
  const domain = await readTokenDomain(reader, token);
  const relay = async (to: Address, value: bigint, nonce: Hex) => {
    const authorization = { from: temporary.address, to, value, validAfter: 0n, validBefore: 2n ** 40n, nonce };
    const signature = await signTransferAuthorization(temporary, domain, authorization);
    return pay(relayer!.privateKey, token, encodeTransferWithAuthorization(authorization, signature));
  };
  await relay(merchant, 9_900_000n, nonceOf('merchant'));
  const platformPaid = await relay(relayer!.address, 100_000n, nonceOf('platform'));
  const second = await pay(customer!.privateKey, temporary.address, undefined, 4_000_000n);
  // And a wallet created after the backup (HD index 10, above the database's 7) paid into.
  const lostWallet = new TemporaryAddressDeriver(xpub).addressAt(10n);
  const intoLost = await pay(customer!.privateKey, lostWallet, undefined, 2_000_000n);

  await admin(`CREATE DATABASE "${restoredDatabase}"`);
  await run('pg_restore', ['--exit-on-error', '--single-transaction', `--dbname=${databaseUrl(restoredDatabase)}`, dump]);

  const checked = await runGateway(['restore', 'check', '--json'], env(databaseUrl(restoredDatabase)));
  expect(checked.stderr).toBe('');
  expect(checked.code).toBe(4);
  const report = JSON.parse(checked.stdout) as {
    findings: Record<string, unknown>[];
    advice: Record<string, string>;
    watcherCheckpoint: string;
  };
  expect(report.watcherCheckpoint).toBe(head.toString());
  const ofKind = (kind: string) => report.findings.filter((finding) => finding.kind === kind);
  expect(ofKind('leg_paid_on_chain')).toEqual([
    expect.objectContaining({ depositId, leg: 'merchant', authorizationNonce: nonceOf('merchant') }),
  ]);
  expect(ofKind('payout_unknown')).toEqual([
    expect.objectContaining({
      temporaryWallet: temporary.address.toLowerCase(),
      authorizationNonce: nonceOf('platform'),
      txHash: platformPaid.transactionHash,
    }),
  ]);
  expect(ofKind('deposit_after_checkpoint')).toEqual([
    expect.objectContaining({ temporaryWallet: temporary.address.toLowerCase(), amount: '4000000', txHash: second.transactionHash }),
  ]);
  expect(ofKind('callback_not_delivered')).toEqual([expect.objectContaining({ deliveryId, status: 'pending' })]);
  expect(ofKind('relayer_counter_behind')).toEqual([
    expect.objectContaining({ relayerAddress: relayer!.address.toLowerCase(), chainNonce: expect.any(String) }),
  ]);
  expect(ofKind('wallet_unknown')).toEqual([
    expect.objectContaining({ temporaryWallet: lostWallet.toLowerCase(), hdIndex: '10', txHash: intoLost.transactionHash }),
  ]);
  expect(report.findings).toHaveLength(6);
  expect(Object.keys(report.advice).sort()).toEqual([
    'callback_not_delivered',
    'deposit_after_checkpoint',
    'leg_paid_on_chain',
    'payout_unknown',
    'relayer_counter_behind',
    'wallet_unknown',
  ]);

  // The same for a person: each kind with its count and what to do, then one line per finding.
  const text = await runGateway(['restore', 'check'], env(databaseUrl(restoredDatabase)));
  expect(text.code).toBe(4);
  expect(text.stdout).toContain('leg_paid_on_chain (1): the database holds this leg as unpaid but the chain executed its authorization');
  expect(text.stdout).toContain(`deposit_after_checkpoint (1): USDC reached a temporary wallet after the watcher's checkpoint`);
  expect(text.stdout).toContain(`txHash=${second.transactionHash}`);
  // Without HD_XPUB the lost wallet is not looked for, and the check says so.
  const { HD_XPUB: _xpub, ...withoutXpub } = env(databaseUrl(restoredDatabase));
  const blind = await runGateway(['restore', 'check', '--json'], withoutXpub);
  expect(blind.code).toBe(4);
  const blindReport = JSON.parse(blind.stdout) as { findings: { kind: string }[]; hdIndexesSearched: unknown };
  expect(blindReport.hdIndexesSearched).toBeNull();
  expect(blindReport.findings.map((finding) => finding.kind)).not.toContain('wallet_unknown');
}, 120_000);

it('refuses a bad --from-block (exit 2) and says so when the chain cannot be read (exit 1)', async () => {
  const usage = await runGateway(['restore', 'check', '--from-block', 'yesterday'], env());
  expect(usage.code).toBe(2);
  expect(usage.stderr).toContain('--from-block is a block number (0 or more)');
  const gap = await runGateway(['restore', 'check', '--hd-gap', '0'], env());
  expect(gap.code).toBe(2);
  expect(gap.stderr).toContain('--hd-gap is a number of HD indexes, 1 to 9999999');
  const unreachable = await runGateway(['restore', 'check'], { ...env(), CHAIN_RPC_URL: 'http://127.0.0.1:9' });
  expect(unreachable.code).toBe(1);
  expect(unreachable.stderr).toMatch(/^gateway restore check: /);
  const wrongChain = await runGateway(['restore', 'check'], { ...env(), CHAIN_ID: '137' });
  expect(wrongChain.code).toBe(1);
  expect(wrongChain.stderr).toContain(`CHAIN_RPC_URL answers chain ${chain.chainId}, CHAIN_ID says 137`);
});
