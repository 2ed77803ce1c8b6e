import { waitFor } from '@gateway/testkit';
import type { FastifyInstance } from 'fastify';
import { getAddress } from 'viem';
import { createPool } from '@gateway/db/settlement-worker';
import { fingerprintFromMnemonic, readTokenDomain, PUBLIC_TEST_MNEMONIC } from '@gateway/chain';
import { SettlementChainClient } from '../../src/chain/settlement-chain-client';
import {
  freshAddress,
  relayerAccount,
  type SettlementFixture,
  USDC,
  type TestWallet,
  settlementAppForFile,
} from '../support/settlement-fixture';

jest.setTimeout(120_000);

let fixture: SettlementFixture;
let app: FastifyInstance;

settlementAppForFile('settle', (started, built) => ([fixture, app] = [started, built]));

async function expectEachAuthorizationUsedOnce(wallet: TestWallet, depositIds: string[]): Promise<void> {
  const uses = await fixture.authorizationUses(wallet.address);
  const nonces = (await Promise.all(depositIds.map((id) => fixture.legsOf(id)))).flat().map((leg) => leg.authorization_nonce);
  expect(nonces.length).toBeGreaterThan(0);
  for (const nonce of nonces) expect(uses.get(nonce)).toBe(1);
  expect([...uses.values()].reduce((a, b) => a + b, 0)).toBe(nonces.length);
}

describe('settlement of a final deposit', () => {
  it('forwards it less 1%: exact balances on chain, temporary wallet emptied and never funded, callback delivery written', async () => {
    const wallet = await fixture.createWallet();
    const relayerBefore = await fixture.nativeBalance(relayerAccount.address);
    const deposit = await fixture.depositPaidOut(wallet, 25n * USDC);

    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(24_750_000n);
    expect(await fixture.usdcBalance(fixture.platformFeeAddress)).toBe(250_000n);
    expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
    expect(await fixture.nativeBalance(wallet.address)).toBe(0n);
    // The relayer paid the gas.
    expect(await fixture.nativeBalance(relayerAccount.address)).toBeLessThan(relayerBefore);

    const legs = await fixture.legsOf(deposit.id);
    expect(legs.map((leg) => [leg.leg, leg.amount, leg.status])).toEqual([
      ['merchant', '24750000', 'confirmed'],
      ['platform', '250000', 'confirmed'],
    ]);
    await expectEachAuthorizationUsedOnce(wallet, [deposit.id]);

    const [delivery, ...others] = await fixture.deliveryOf(deposit.id);
    expect(others).toHaveLength(0);
    expect(delivery).toMatchObject({
      wallet_id: wallet.id,
      value_coin: '25000000',
      value_forwarded_coin: '24750000',
      fee_coin: '250000',
      txid_in: deposit.txHash,
      txid_out: legs[0]!.tx_hash,
      status: 'pending',
    });
    expect(await fixture.hasCallbackJob(delivery!.id)).toBe(true);
    // txid_out is the merchant transfer, mined on chain.
    const receipt = await fixture.rpc.getTransactionReceipt({ hash: delivery!.txid_out as `0x${string}` });
    expect(receipt.status).toBe('success');
    expect(getAddress(receipt.from)).toBe(getAddress(relayerAccount.address));
  });

  it('reads the EIP-712 domain from the token at boot, and refuses a node of another chain or a contract that is not the token', async () => {
    const target = { rpcUrl: fixture.anvil.rpcUrl, chainId: fixture.anvil.chainId, token: fixture.token, pollingIntervalMs: 100 };
    const chain = await SettlementChainClient.connect(target);
    expect(chain.domain).toEqual(await readTokenDomain(fixture.rpc, fixture.token));
    expect(chain.domain).toMatchObject({ name: 'USD Coin', version: '2', chainId: fixture.anvil.chainId });
    await expect(SettlementChainClient.connect({ ...target, chainId: 1 })).rejects.toThrow(/serves chain 137, but CHAIN_ID is 1/);
    await expect(SettlementChainClient.connect({ ...target, token: freshAddress() })).rejects.toThrow(/EIP-712 domain|returned no data/);
  });

  it('refuses to boot with a seed whose key did not derive the wallets (the key wallet-control registered)', async () => {
    await fixture.db.pool.query(`INSERT INTO hd_keys (fingerprint) VALUES ('0badf00d')`);
    try {
      await expect(fixture.buildApp()).rejects.toThrow(
        /SETTLEMENT_MNEMONIC: its key m\/44'\/60'\/0'\/0 \(fingerprint [0-9a-f]{8}\) is not the key/,
      );
    } finally {
      await fixture.db.pool.query(`DELETE FROM hd_keys`);
    }
    const ours = fingerprintFromMnemonic(PUBLIC_TEST_MNEMONIC);
    await fixture.db.pool.query(`INSERT INTO hd_keys (fingerprint) VALUES ($1)`, [ours]);
    try {
      await (await fixture.buildApp()).close();
    } finally {
      await fixture.db.pool.query(`DELETE FROM hd_keys`);
    }
  });

  it('pays the affiliate its share as a third leg', async () => {
    const affiliate = freshAddress();
    const wallet = await fixture.createWallet({ affiliate: { address: affiliate, bps: 50 } });
    const deposit = await fixture.deposit(wallet, 10n * USDC);
    const feeBefore = await fixture.usdcBalance(fixture.platformFeeAddress);
    await fixture.enqueue(deposit.id);
    await fixture.waitForPaidOut(deposit.id);

    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(9_850_000n);
    expect((await fixture.usdcBalance(fixture.platformFeeAddress)) - feeBefore).toBe(100_000n);
    expect(await fixture.usdcBalance(affiliate)).toBe(50_000n);
    expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
    expect((await fixture.deliveryOf(deposit.id))[0]).toMatchObject({ value_forwarded_coin: '9850000', fee_coin: '150000' });
    await expectEachAuthorizationUsedOnce(wallet, [deposit.id]);
  });

  it('forwards several deposits into one wallet, each moving only its own amount', async () => {
    const wallet = await fixture.createWallet();
    const amounts = [1n * USDC, 2_500_000n, 7_000_001n];
    const deposits = [];
    for (const amount of amounts) deposits.push(await fixture.deposit(wallet, amount));
    await Promise.all(deposits.map((deposit) => fixture.enqueue(deposit.id)));
    for (const deposit of deposits) await fixture.waitForPaidOut(deposit.id);

    let merchantTotal = 0n;
    for (const deposit of deposits) {
      const legs = await fixture.legsOf(deposit.id);
      expect(legs.reduce((sum, leg) => sum + BigInt(leg.amount), 0n)).toBe(deposit.amount);
      merchantTotal += BigInt(legs.find((leg) => leg.leg === 'merchant')!.amount);
      expect((await fixture.deliveryOf(deposit.id))[0]?.value_coin).toBe(deposit.amount.toString());
    }
    // 1% of 7.000001 is 70000.01: the fee rounds down, the merchant keeps the odd unit.
    expect(merchantTotal).toBe(990_000n + 2_475_000n + 6_930_001n);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(merchantTotal);
    expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
    expect(await fixture.nativeBalance(wallet.address)).toBe(0n);
    await expectEachAuthorizationUsedOnce(
      wallet,
      deposits.map((d) => d.id),
    );
  });

  it('holds a deposit below the dust threshold instead of forwarding it at a loss', async () => {
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 9_999n);
    await fixture.enqueue(deposit.id);
    await fixture.waitForStatus(deposit.id, 'held');
    await waitFor('held job', async () => (await fixture.settlementQueue.getJobState(`deposit-${deposit.id}`)) === 'completed', 10_000);

    expect(await fixture.legsOf(deposit.id)).toEqual([]);
    expect(await fixture.deliveryOf(deposit.id)).toEqual([]);
    expect(await fixture.usdcBalance(wallet.address)).toBe(9_999n);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(0n);
  });
});

describe('concurrency', () => {
  it('two workers racing on the same deposits produce one payout each, and relayer nonces never collide', async () => {
    const secondPool = createPool({
      connectionString: fixture.db.connectionString,
      schema: fixture.db.schema,
      max: 6,
      app: 'settlement-worker',
    });
    const second = await fixture.buildApp({}, secondPool);
    try {
      const wallets = await Promise.all([fixture.createWallet(), fixture.createWallet()]);
      const deposits = [];
      for (let i = 0; i < 6; i += 1) deposits.push(await fixture.deposit(wallets[i % 2]!, BigInt(i + 1) * USDC));

      // Both services settle each deposit at the same moment (outside the queue, so BullMQ's
      // job-id dedupe is not what protects them), while both also consume the queue.
      second.settlementConsumer.start();
      for (const deposit of deposits) {
        const results = await Promise.allSettled([
          app.settlementService.settle(deposit.id),
          second.settlementService.settle(deposit.id),
          fixture.enqueue(deposit.id),
        ]);
        for (const result of results) {
          if (result.status === 'rejected') expect(String(result.reason)).toMatch(/being settled by another worker/);
        }
      }
      for (const deposit of deposits) await fixture.waitForPaidOut(deposit.id);

      for (const wallet of wallets) {
        await expectEachAuthorizationUsedOnce(
          wallet,
          deposits.filter((_, i) => wallets[i % 2] === wallet).map((d) => d.id),
        );
        expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
      }
      const expectedMerchant = (ids: number[]) => ids.reduce((sum, i) => sum + (BigInt(i + 1) * USDC * 99n) / 100n, 0n);
      expect(await fixture.usdcBalance(wallets[0]!.payoutAddress)).toBe(expectedMerchant([0, 2, 4]));
      expect(await fixture.usdcBalance(wallets[1]!.payoutAddress)).toBe(expectedMerchant([1, 3, 5]));

      for (const deposit of deposits) {
        // One relayer transaction per leg: nobody sent a leg twice.
        const transactions = await fixture.transactionsOf(deposit.id);
        expect(transactions.map((t) => t.leg).sort()).toEqual(['merchant', 'platform']);
        expect(await fixture.deliveryOf(deposit.id)).toHaveLength(1);
      }
      const { rows } = await fixture.db.pool.query<{ shared: number }>(
        `SELECT count(*)::int AS shared FROM (
           SELECT relayer_nonce FROM payout_transactions GROUP BY relayer_nonce HAVING count(DISTINCT payout_id) > 1) s`,
      );
      expect(rows[0]!.shared).toBe(0);
    } finally {
      await second.close();
      await secondPool.end();
    }
  });
});

describe('reconciler', () => {
  it('re-enqueues a final deposit whose job Redis lost, and the worker forwards it', async () => {
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 3n * USDC);
    // No job was ever added (as if Redis had been flushed).
    const enqueued = await app.settlementReconciler.reconcile();
    expect(enqueued).toBeGreaterThanOrEqual(1);
    await fixture.waitForPaidOut(deposit.id);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(2_970_000n);
    // Nothing is left to reconcile, and a second pass adds nothing.
    expect(await app.settlementReconciler.reconcile()).toBe(0);
  });
});

describe('HTTP', () => {
  it('serves /healthz, /readyz and the settlement metrics', async () => {
    await app.settlementReconciler.refreshRelayerBalance();
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok', chain: 'ok' } });
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/settlement_job_runs_total\{outcome="forwarded",service="settlement-worker"\} \d+/);
    expect(metrics).toMatch(/settlement_job_runs_total\{outcome="held",service="settlement-worker"\} 1/);
    expect(metrics).toMatch(/settlement_relayer_balance_native\{service="settlement-worker"\} 9\d{3}\.\d+/);
    expect(metrics).toMatch(/settlement_job_run_duration_seconds_bucket\{le="5",service="settlement-worker",outcome="forwarded"\} [1-9]/);
    expect(metrics).toMatch(/settlement_payout_legs_confirmed_total\{leg="affiliate",service="settlement-worker"\} 1/);
    // From final to forwarded, once per deposit forwarded by this app (the dashboard's "final deposit to payout").
    expect(metrics).toMatch(/settlement_final_to_forwarded_seconds_count\{service="settlement-worker"\} [1-9]/);
    expect(metrics).toMatch(/settlement_final_to_forwarded_seconds_bucket\{le="600",service="settlement-worker"\} [1-9]/);
  });
});
