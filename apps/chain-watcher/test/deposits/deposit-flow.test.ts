import type { FastifyInstance } from 'fastify';
import { ChainCursorRepository } from '@gateway/db/chain-watcher';
import { settlementJobId, settlementJobOptions } from '@gateway/queue';
import type { Address } from 'viem';
import { mintTestUsdc } from '@gateway/chain';
import { anvilAccounts, sleep, waitFor } from '@gateway/testkit';
import { seedPayment } from '@gateway/app-testkit';
import { FINALIZED_LAG } from '../support/local-chain';
import { insertWallet, strangerAddress } from '../support/wallets';
import { countDeposits, cursorBlock, depositsOf, metricValue, useWatcherBed, readUpToHead } from '../support/watcher-fixture';

jest.setTimeout(60_000);

const bed = useWatcherBed('watcher_flow');
let app: FastifyInstance;
let startCursor: bigint;

/** Waits until the watcher has read up to the head, then lets two more rounds (finality) run. */
async function settle(): Promise<void> {
  await readUpToHead(app, bed.chain);
  await sleep(300);
}

async function onlyDepositOf(walletId: string, status?: string) {
  return waitFor(`a ${status ?? ''} deposit of wallet ${walletId}`, async () => {
    const rows = await depositsOf(bed.db.pool, walletId);
    return rows.length === 1 && (status === undefined || rows[0]!.status === status) ? rows[0] : undefined;
  });
}

beforeAll(async () => {
  app = await bed.watch();
  // With no START_BLOCK the first cursor is the head at the first round; transfers come after it.
  startCursor = cursorBlock(app);
});

describe('chain-watcher on a real chain', () => {
  it('records a transfer into a temporary wallet as seen, with the exact amount, and ignores the rest', async () => {
    const wallet = await insertWallet(bed.db.pool);
    await bed.chain.sendUsdc(strangerAddress(), 5_000_000n);
    await bed.chain.sendUsdc(wallet.address, 0n);
    const receipt = await bed.chain.sendUsdc(wallet.address, 12_345_678n);

    const deposit = await onlyDepositOf(wallet.id);
    const { timestamp } = await bed.chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    expect(deposit).toMatchObject({
      blockTime: new Date(Number(timestamp) * 1000),
      txHash: receipt.transactionHash,
      logIndex: receipt.logs[0]!.logIndex,
      blockNumber: receipt.blockNumber.toString(),
      blockHash: receipt.blockHash,
      walletId: wallet.id,
      fromAddress: bed.chain.sender.toLowerCase(),
      amount: '12345678',
      status: 'seen',
    });
    await settle();
    expect(await countDeposits(bed.db.pool)).toBe(1);
    expect(await metricValue(app, 'chain_watcher_deposits_total', { status: 'seen' })).toBe(1);
  });

  it('times checkout to USDC received for the payment the deposit is credited to, by its provider, once', async () => {
    const wallet = await insertWallet(bed.db.pool);
    // An order tried at MoonPay 10 minutes ago, then at Transak 5 minutes ago (a second chance): Transak's paid.
    const attempt = (provider: string, minutesAgo: number) =>
      seedPayment(bed.db.pool, { walletId: wallet.id, provider, createdAt: new Date(Date.now() - minutesAgo * 60_000) });
    await attempt('moonpay', 10);
    await attempt('transak', 5);
    await bed.chain.sendUsdc(wallet.address, 25_000_000n);
    await onlyDepositOf(wallet.id);
    const sum = await waitFor('the histogram sample', async () => {
      const value = await metricValue(app, 'chain_watcher_checkout_to_usdc_seconds_sum', { provider: 'transak' });
      return Number.isNaN(value) ? undefined : value;
    });
    expect(sum).toBeGreaterThanOrEqual(300);
    expect(sum).toBeLessThan(330);
    expect(await metricValue(app, 'chain_watcher_checkout_to_usdc_seconds_bucket', { provider: 'transak', le: '600' })).toBe(1);
    expect(await metricValue(app, 'chain_watcher_checkout_to_usdc_seconds_bucket', { provider: 'transak', le: '300' })).toBe(0);
    expect(await metricValue(app, 'chain_watcher_checkout_to_usdc_seconds_count', { provider: 'moonpay' })).toBeNaN();
    await settle();
    expect(await metricValue(app, 'chain_watcher_checkout_to_usdc_seconds_count', { provider: 'transak' })).toBe(1);
  });

  it('never records another ERC-20 sent to a temporary wallet as a deposit, from a sender or minted there', async () => {
    const wallet = await insertWallet(bed.db.pool);
    const foreign = await bed.chain.deployForeignToken();
    const sent = await bed.chain.sendToken(foreign, wallet.address, 25_000_000n);
    // The same Transfer event, from the same sender, as a USDC deposit: only the contract differs.
    expect(sent.logs[0]!.address.toLowerCase()).toBe(foreign.toLowerCase());
    await mintTestUsdc({
      rpcUrl: bed.chain.anvil.rpcUrl,
      chainId: bed.chain.anvil.chainId,
      token: foreign,
      ownerKey: anvilAccounts[0].privateKey,
      to: wallet.address as Address,
      amount: 1_000_000n,
    });
    // A USDC deposit after them: once it is seen, the blocks before it have been read.
    const usdc = await insertWallet(bed.db.pool);
    await bed.chain.sendUsdc(usdc.address, 1_000_000n);
    await onlyDepositOf(usdc.id, 'seen');
    await settle();
    expect(await depositsOf(bed.db.pool, wallet.id)).toEqual([]);
  });

  it("makes a deposit final once the chain's finalized block reaches it, not before, and queues one settlement job", async () => {
    const wallet = await insertWallet(bed.db.pool);
    await bed.chain.sendUsdc(wallet.address, 2_000_000n);
    const seen = await onlyDepositOf(wallet.id, 'seen');

    // Far deeper than CONFIRMATIONS already: the node serves the finalized tag, so depth plays no part.
    await bed.chain.mine(FINALIZED_LAG - 1);
    await settle();
    expect((await onlyDepositOf(wallet.id)).status).toBe('seen');
    expect(await bed.queue.getJob(settlementJobId(seen.id))).toBeUndefined();

    await bed.chain.mine(1);
    const final = await onlyDepositOf(wallet.id, 'final');
    expect(final.finalAt).toBeInstanceOf(Date);
    const job = await waitFor('the settlement job', async () => bed.queue.getJob(settlementJobId(final.id)));
    expect(job.data).toEqual({ depositId: final.id });
    expect(job.opts.attempts).toBe(settlementJobOptions.attempts);
    expect(await metricValue(app, 'chain_watcher_deposits_total', { status: 'final' })).toBeGreaterThanOrEqual(1);
  });

  it('reading the same blocks again (cursor moved back) writes nothing twice and changes nothing', async () => {
    const wallet = await insertWallet(bed.db.pool);
    await bed.chain.sendUsdc(wallet.address, 1_000_000n);
    await onlyDepositOf(wallet.id, 'seen');
    await settle();
    const snapshot = async () =>
      (await bed.db.pool.query('SELECT id, tx_hash, log_index, block_hash, status FROM deposits ORDER BY id')).rows;
    const before = await snapshot();
    const seenBefore = await metricValue(app, 'chain_watcher_deposits_total', { status: 'seen' });

    const cursors = new ChainCursorRepository(bed.db.pool);
    const key = { chainId: 137, token: bed.chain.token };
    // Back to before the first transfer of this file: every deposit so far is read again.
    const rewindTo = startCursor;
    await cursors.set(key, { blockNumber: rewindTo, blockHash: await bed.chain.blockHash(rewindTo) });
    const head = await bed.chain.head();
    await waitFor('the cursor back at the head', async () => (await cursors.get(key))!.blockNumber >= head);
    await sleep(300);

    expect(await snapshot()).toEqual(before);
    expect(await metricValue(app, 'chain_watcher_deposits_total', { status: 'seen' })).toBe(seenBefore);
  });

  it('orphans an unfinal deposit whose block a reorg dropped, and never makes it final', async () => {
    const wallet = await insertWallet(bed.db.pool);
    const snapshot = await bed.chain.snapshot();
    await bed.chain.sendUsdc(wallet.address, 7_000_000n);
    const seen = await onlyDepositOf(wallet.id, 'seen');

    await bed.chain.revert(snapshot);
    await bed.chain.mine(2);
    await onlyDepositOf(wallet.id, 'orphaned');
    // The deposit may be orphaned by the finality tracker's round before the scanner's next round
    // meets the changed block hash and counts the reorg (on a loaded machine the rounds interleave
    // either way): the count is awaited, never skipped.
    await waitFor('the reorg counted', async () => (await metricValue(app, 'chain_watcher_reorgs_total')) >= 1);
    expect(await metricValue(app, 'chain_watcher_deposits_total', { status: 'orphaned' })).toBe(1);

    await bed.chain.mine(FINALIZED_LAG + 2);
    await settle();
    expect((await onlyDepositOf(wallet.id)).status).toBe('orphaned');
    expect(await bed.queue.getJob(settlementJobId(seen.id))).toBeUndefined();
  });

  it('brings an orphaned deposit back, same row, when its transaction is mined again in the new chain', async () => {
    const wallet = await insertWallet(bed.db.pool);
    const snapshot = await bed.chain.snapshot();
    const raw = await bed.chain.signUsdcTransfer(wallet.address, 3_000_000n);
    const first = await bed.chain.broadcast(raw);
    const seen = await onlyDepositOf(wallet.id, 'seen');

    await bed.chain.revert(snapshot);
    await bed.chain.mine(2);
    await onlyDepositOf(wallet.id, 'orphaned');
    const again = await bed.chain.broadcast(raw);
    expect(again.transactionHash).toBe(first.transactionHash);
    expect(again.logs[0]!.logIndex).toBe(first.logs[0]!.logIndex);
    expect(again.blockNumber).not.toBe(first.blockNumber);

    const revived = await onlyDepositOf(wallet.id, 'seen');
    expect(revived).toMatchObject({ id: seen.id, blockNumber: again.blockNumber.toString(), blockHash: again.blockHash });
    await bed.chain.mine(FINALIZED_LAG);
    expect((await onlyDepositOf(wallet.id, 'final')).id).toBe(seen.id);
  });

  it('a new instance resumes from the stored cursor: it finds what came while none ran, nothing twice', async () => {
    await app.close();
    const wallet = await insertWallet(bed.db.pool);
    await bed.chain.sendUsdc(wallet.address, 1_500_000n);
    await bed.chain.mine(5);
    await bed.chain.sendUsdc(wallet.address, 2_500_000n);
    const before = await countDeposits(bed.db.pool);

    app = await bed.watch();
    await waitFor('both deposits', async () => (await depositsOf(bed.db.pool, wallet.id)).length === 2);
    await settle();
    expect((await depositsOf(bed.db.pool, wallet.id)).map((d) => d.amount)).toEqual(['1500000', '2500000']);
    expect(await countDeposits(bed.db.pool)).toBe(before + 2);
  });

  it('serves /healthz, /readyz (saying it leads) and /metrics', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ok', watcher: { role: 'leader', chainId: 137 } });
    expect(await metricValue(app, 'chain_watcher_leader')).toBe(1);
    expect(await metricValue(app, 'chain_watcher_head_block')).toBe(Number(await bed.chain.head()));
    expect(await metricValue(app, 'chain_watcher_lag_blocks')).toBe(0);
    expect(await metricValue(app, 'chain_watcher_scan_batch_duration_seconds_count')).toBeGreaterThan(0);
  });
});
