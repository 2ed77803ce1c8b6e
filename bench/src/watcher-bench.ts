// Chain-watcher throughput: one block holding 1,000 and one holding 10,000 USDC Transfer logs,
// half of them into temporary wallets, against 1,000,000 wallet rows. Timed: what the watcher does
// per block range (eth_getLogs with its hash checks, the one-query wallet match, the deposit
// insert and the cursor move in one transaction). `pnpm --filter @gateway/bench bench:watcher`;
// results in bench/results/watcher.json. BENCH_SMOKE=1: 10,000 rows, one block of 200, one run.
import { randomBytes, randomInt } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname } from 'node:path';
import type { Pool } from 'pg';
import { createPublicClient, createWalletClient, http, type Address, type Hash, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ChainCursorRepository, createPool, DepositRepository, migrate, type ChainCursorKey } from '@gateway/db/chain-watcher';
import { compileSolidity, defineLocalChain, deployTestUsdc, mintTestUsdc } from '@gateway/chain';
import { anvilAccounts, startAnvil, type RunningAnvil } from '@gateway/testkit';
// The bench drives the watcher's own range reader in-process, to time exactly one range.
import { ChainReader, DepositScanner, WatcherMetrics, type ScanResult } from '@gateway/chain-watcher';
import { benchInt, benchSetting, resultsFile } from './bench-mode';

const RESULTS_FILE = resultsFile('watcher.json');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const WALLET_ROWS = benchInt('BENCH_WALLET_ROWS', 1_000_000, 10_000);
const BLOCK_SIZES = benchSetting('BENCH_BLOCK_TRANSFERS', '1000,10000', '200').split(',').map(Number);
const WALLET_SHARE = Number(process.env.BENCH_WALLET_SHARE ?? '0.5');
const RUNS = benchInt('BENCH_RUNS', 3, 1);
// EIP-7825 caps a transaction at 2^24 gas; ~30k gas per transfer to a fresh address.
const TRANSFERS_PER_TX = 400;
const GAS_PER_TX = 16_000_000n;
const BLOCK_GAS_LIMIT = 2_000_000_000n;
const CHAIN_ID = 137;

const BATCH_SENDER_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IToken {
    function transfer(address to, uint256 value) external returns (bool);
}

/// Bench only: many token transfers in one transaction, so one block can hold thousands of logs.
contract BatchSender {
    function send(address token, address[] calldata recipients, uint256 value) external {
        for (uint256 i = 0; i < recipients.length; ++i) {
            require(IToken(token).transfer(recipients[i], value), "transfer failed");
        }
    }
}
`;

interface BlockUnderTest {
  transfers: number;
  walletTransfers: number;
  blockNumber: bigint;
}

interface Measurement {
  blockTransfers: number;
  walletRows: number;
  matched: number;
  seconds: number;
  transfersPerSecond: number;
  depositsWrittenPerSecond: number;
  phasesMs: { chain: number; match: number; write: number };
  runsSeconds: number[];
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const schema = `bench_watcher_${randomBytes(4).toString('hex')}`;
  const pool = createPool({ connectionString: DATABASE_URL, schema, max: 4, applicationName: 'watcher-bench' });
  let anvil: RunningAnvil | undefined;
  try {
    await migrate(pool, schema);
    const loadSeconds = await timed(() => insertWallets(pool, WALLET_ROWS));
    console.log(`${WALLET_ROWS.toLocaleString('en')} wallet rows inserted in ${loadSeconds.toFixed(1)} s (schema ${schema})`);

    anvil = await startAnvil({ chainId: CHAIN_ID });
    const chain = new LocalChain(anvil);
    const token = await chain.setUp();
    const blocks: BlockUnderTest[] = [];
    for (const size of BLOCK_SIZES) {
      const walletTransfers = Math.round(size * WALLET_SHARE);
      const recipients = shuffle([...(await sampleWalletAddresses(pool, walletTransfers)), ...randomAddresses(size - walletTransfers)]);
      const blockNumber = await chain.mineTransfersInOneBlock(token, recipients);
      blocks.push({ transfers: size, walletTransfers, blockNumber });
      console.log(`block ${blockNumber}: ${size.toLocaleString('en')} transfers (${walletTransfers.toLocaleString('en')} into wallets)`);
    }

    const measurements: Measurement[] = [];
    for (const block of blocks) measurements.push(await measure(pool, anvil, token, block));
    printTable(measurements);
    writeResults(measurements, loadSeconds, (Date.now() - startedAt) / 1000);
  } finally {
    await anvil?.stop();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await pool.end();
  }
}

/**
 * 1M rows in one statement, with addresses derived from md5 (lower-case hex, as stored). Setup, not
 * what is measured: it runs on a session of its own with no statement timeout (the pool's 15 s
 * default, which the scan keeps, cancelled it: 45 s here, every wallet index filled row by row) and
 * asynchronous commit, and that session is closed after, so no scan runs with its settings.
 */
async function insertWallets(pool: Pool, rows: number): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SET statement_timeout = 0');
    await client.query('SET synchronous_commit = off');
    await client.query(
      `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
       SELECT i, '0x' || substr(md5('w' || i) || md5('x' || i), 1, 40), 'bench-' || i,
              '0x52908400098527886e0f7030069857d2e4169ee7', 'https://shop.example/ipn/' || i || '?order=' || i,
              decode(md5('d' || i), 'hex'), md5('t' || i)
       FROM generate_series(1, $1::int) AS i`,
      [rows],
    );
    await client.query('ANALYZE wallets');
  } finally {
    client.release(true);
  }
}

async function sampleWalletAddresses(pool: Pool, count: number): Promise<string[]> {
  const indexes = new Set<number>();
  while (indexes.size < count) indexes.add(randomInt(1, WALLET_ROWS + 1));
  const { rows } = await pool.query<{ address: string }>(
    'SELECT polygon_address AS address FROM wallets WHERE hd_index = ANY($1::bigint[])',
    [[...indexes]],
  );
  return rows.map((row) => row.address);
}

function randomAddresses(count: number): string[] {
  return Array.from({ length: count }, () => `0x${randomBytes(20).toString('hex')}`);
}

class LocalChain {
  private readonly publicClient: PublicClient;
  private readonly deployer = privateKeyToAccount(anvilAccounts[0].privateKey);
  private batchSender: Address | undefined;

  constructor(private readonly anvil: RunningAnvil) {
    this.publicClient = createPublicClient({
      chain: defineLocalChain(anvil),
      transport: http(anvil.rpcUrl, { retryCount: 0, timeout: 60_000 }),
      pollingInterval: 50,
    }) as PublicClient;
  }

  /** Deploys the test USDC and a batch sender holding enough of it; returns the token. */
  async setUp(): Promise<Address> {
    await this.rpc('evm_setBlockGasLimit', [`0x${BLOCK_GAS_LIMIT.toString(16)}`]);
    await this.rpc('anvil_mine', ['0x1']);
    const token = await deployTestUsdc({ rpcUrl: this.anvil.rpcUrl, chainId: CHAIN_ID, deployerKey: anvilAccounts[0].privateKey });
    const artifact = compileSolidity('BatchSender.sol', BATCH_SENDER_SOURCE, 'BatchSender');
    const wallet = this.walletClient();
    const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode });
    const receipt = await this.publicClient.waitForTransactionReceipt({ hash });
    if (!receipt.contractAddress) throw new Error('BatchSender deployment created no contract');
    this.batchSender = receipt.contractAddress;
    const supply = BigInt(BLOCK_SIZES.reduce((sum, size) => sum + size, 0));
    await mintTestUsdc({
      rpcUrl: this.anvil.rpcUrl,
      chainId: CHAIN_ID,
      token,
      ownerKey: anvilAccounts[0].privateKey,
      to: this.batchSender,
      amount: supply,
    });
    return token;
  }

  /** Sends every transfer with automine off, then mines them all into one block; returns its number. */
  async mineTransfersInOneBlock(token: Address, recipients: string[]): Promise<bigint> {
    const sender = this.batchSender;
    if (!sender) throw new Error('setUp() first');
    const wallet = this.walletClient();
    let nonce = await this.publicClient.getTransactionCount({ address: this.deployer.address, blockTag: 'pending' });
    const hashes: Hash[] = [];
    await this.rpc('evm_setAutomine', [false]);
    try {
      for (let start = 0; start < recipients.length; start += TRANSFERS_PER_TX) {
        hashes.push(
          await wallet.writeContract({
            address: sender,
            abi: batchSenderAbi,
            functionName: 'send',
            args: [token, recipients.slice(start, start + TRANSFERS_PER_TX) as Address[], 1n],
            gas: GAS_PER_TX,
            nonce: nonce++,
          }),
        );
      }
      await this.rpc('evm_mine');
    } finally {
      await this.rpc('evm_setAutomine', [true]);
    }
    const receipts = await Promise.all(hashes.map((hash) => this.publicClient.waitForTransactionReceipt({ hash })));
    const blockNumbers = new Set(receipts.map((receipt) => receipt.blockNumber));
    if (receipts.some((receipt) => receipt.status !== 'success') || blockNumbers.size !== 1) {
      throw new Error(`the transfers did not all succeed in one block (blocks: ${[...blockNumbers].join(', ')})`);
    }
    return receipts[0]!.blockNumber;
  }

  private walletClient() {
    return createWalletClient({
      account: this.deployer,
      chain: defineLocalChain(this.anvil),
      transport: http(this.anvil.rpcUrl, { retryCount: 0, timeout: 60_000 }),
    });
  }

  private rpc(method: string, params: unknown[] = []): Promise<unknown> {
    return this.publicClient.request({ method: method as 'eth_chainId', params: params as never });
  }
}

const batchSenderAbi = [
  {
    type: 'function',
    name: 'send',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'token', type: 'address' },
      { name: 'recipients', type: 'address[]' },
      { name: 'value', type: 'uint256' },
    ],
    outputs: [],
  },
] as const;

/** One warm-up, then RUNS timed reads of the block, each from a clean slate (no deposits, cursor before it). */
async function measure(pool: Pool, anvil: RunningAnvil, token: Address, block: BlockUnderTest): Promise<Measurement> {
  const metrics = new WatcherMetrics();
  const chain = new ChainReader({ rpcUrl: anvil.rpcUrl, timeoutMs: 60_000, metrics });
  const cursors = new ChainCursorRepository(pool);
  const cursorKey: ChainCursorKey = { chainId: CHAIN_ID, token };
  const scanner = new DepositScanner({
    pool,
    chain,
    deposits: new DepositRepository(pool, CHAIN_ID),
    cursors,
    cursorKey,
    tokens: [token.toLowerCase() as Address],
    maxBlockRange: 1,
    metrics,
  });
  const before = { blockNumber: block.blockNumber - 1n, blockHash: (await chain.blockHash(block.blockNumber - 1n)) as Hex };
  const results: { seconds: number; result: ScanResult }[] = [];
  for (let run = 0; run <= RUNS; run += 1) {
    await pool.query('DELETE FROM deposits');
    await cursors.set(cursorKey, before);
    const started = performance.now();
    const result = await scanner.scanNext(before, block.blockNumber);
    const seconds = (performance.now() - started) / 1000;
    if (result.transfers !== block.transfers || result.matched !== block.walletTransfers || result.written !== block.walletTransfers) {
      throw new Error(`block ${block.blockNumber}: read ${result.transfers} transfers, matched ${result.matched}, wrote ${result.written}`);
    }
    if (run > 0) results.push({ seconds, result });
  }
  const median = [...results].sort((a, b) => a.seconds - b.seconds)[Math.floor(results.length / 2)]!;
  return {
    blockTransfers: block.transfers,
    walletRows: WALLET_ROWS,
    matched: median.result.matched,
    seconds: round(median.seconds, 3),
    transfersPerSecond: Math.round(block.transfers / median.seconds),
    depositsWrittenPerSecond: Math.round(median.result.written / median.seconds),
    phasesMs: {
      chain: round(median.result.timingsMs.chain, 1),
      match: round(median.result.timingsMs.match, 1),
      write: round(median.result.timingsMs.write, 1),
    },
    runsSeconds: results.map((r) => round(r.seconds, 3)),
  };
}

function printTable(measurements: Measurement[]): void {
  const header = [
    'block transfers',
    'wallet rows',
    'matched',
    'seconds',
    'transfers matched/s',
    'deposits written/s',
    'getLogs ms',
    'match ms',
    'insert ms',
  ];
  const rows = measurements.map((m) => [
    m.blockTransfers.toLocaleString('en'),
    m.walletRows.toLocaleString('en'),
    m.matched.toLocaleString('en'),
    m.seconds.toFixed(3),
    m.transfersPerSecond.toLocaleString('en'),
    m.depositsWrittenPerSecond.toLocaleString('en'),
    m.phasesMs.chain.toFixed(1),
    m.phasesMs.match.toFixed(1),
    m.phasesMs.write.toFixed(1),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padStart(widths[i]!)).join(' | ')} |`;
  console.log(
    `\nChain-watcher throughput (median of ${RUNS} runs; one block range = getLogs + one wallet match query + insert/cursor transaction)`,
  );
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
  console.log(
    'transfers matched/s: Transfer logs read and matched against the wallet rows per second; deposits written/s: those into wallets.',
  );
}

function writeResults(measurements: Measurement[], walletLoadSeconds: number, totalSeconds: number): void {
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  const report = {
    benchmark: 'chain-watcher throughput',
    measuredAt: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      memoryGb: round(totalmem() / 2 ** 30, 1),
      loadAverage: loadavg(),
      node: process.version,
    },
    setup: {
      walletRows: WALLET_ROWS,
      walletShare: WALLET_SHARE,
      runs: RUNS,
      walletLoadSeconds: round(walletLoadSeconds, 1),
      totalSeconds: round(totalSeconds, 1),
    },
    results: measurements,
  };
  writeFileSync(RESULTS_FILE, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`results written to ${RESULTS_FILE}`);
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = randomInt(0, i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
