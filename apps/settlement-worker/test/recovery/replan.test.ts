import { createWalletClient, getAddress, http, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  defineLocalChain,
  encodeTransferWithAuthorization,
  setTestUsdcBlacklisted,
  setTestUsdcPaused,
  splitSignature,
  usdcAbi,
} from '@gateway/chain';
import { anvilAccounts, RpcProxy, waitFor } from '@gateway/testkit';
import { freshAddress, type SettlementFixture, settlementFixtureForFile, USDC } from '../support/settlement-fixture';
import { type CliRun, runGateway } from '@gateway/app-testkit';

jest.setTimeout(180_000);

let fixture: SettlementFixture;

settlementFixtureForFile('replan', (started) => (fixture = started));

afterEach(() => fixture.settlementQueue.obliterate({ force: true }));

/** The operator command, as an operator runs it (`gateway deposits replan …`). */
function replanCommand(args: string[], env: Record<string, string> = fixture.env()): Promise<CliRun> {
  return runGateway(['deposits', 'replan', ...args], env);
}

/** `gateway story <key>` in the worker's environment (the fixture's owner login reads every table). */
function gatewayStory(key: string): Promise<CliRun> {
  return runGateway(['story', key], fixture.env());
}

async function payoutRows(depositId: string) {
  const { rows } = await fixture.db.pool.query<{
    id: string;
    leg: string;
    status: string;
    to_address: string;
    amount: string;
    authorization_nonce: string;
    valid_before: string;
    signature: string | null;
    replaces_payout_id: string | null;
  }>(
    `SELECT id::text, leg, status, to_address, amount::text, authorization_nonce, valid_before::text, signature, replaces_payout_id::text
     FROM payouts WHERE deposit_id = $1 ORDER BY payouts.id`,
    [depositId],
  );
  return rows;
}

const outsiderClient = () =>
  createWalletClient({
    account: privateKeyToAccount(anvilAccounts[2].privateKey),
    chain: defineLocalChain(fixture.anvil),
    transport: http(fixture.anvil.rpcUrl, { retryCount: 0 }),
  });

/** The transferWithAuthorization a leg's stored signature allows, as anyone could relay it. */
function transferOf(from: Address, leg: Awaited<ReturnType<typeof payoutRows>>[number]): Hex {
  return encodeTransferWithAuthorization(
    {
      from,
      to: getAddress(leg.to_address),
      value: BigInt(leg.amount),
      validAfter: 0n,
      validBefore: BigInt(leg.valid_before),
      nonce: leg.authorization_nonce as Hex,
    },
    splitSignature(leg.signature as Hex),
  );
}

describe('replan: the way out of needs_attention', () => {
  it('blacklisted payout address → needs_attention → unBlacklist → replan: old authorization cancelled on chain, forwarded exactly once', async () => {
    const { wallet, deposit } = await fixture.payoutAddressBlocked(10n * USDC);

    const listed = await replanCommand(['--list']);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(listed.stdout).toContain(`deposit ${deposit.id}  needs_attention  payout_address_blacklisted  10 USDC`);
    expect(listed.stdout).toMatch(
      /merchant\s+needs_attention\s+9\.9 USDC to 0x[0-9a-f]{40}\s+payout_address_blacklisted \(Blacklistable: account is blacklisted\)/,
    );

    const listedJson = await replanCommand(['--list', '--json']);
    expect(listedJson.code).toBe(0);
    expect(JSON.parse(listedJson.stdout)).toEqual([
      expect.objectContaining({
        depositId: deposit.id,
        status: 'needs_attention',
        reason: 'payout_address_blacklisted',
        amount: '10000000',
      }),
    ]);

    // The merchant's address is cleared; the old merchant leg was signed before its estimate failed.
    await setTestUsdcBlacklisted(fixture.tokenAdmin, wallet.payoutAddress, false);
    const [oldMerchant, oldPlatform] = await payoutRows(deposit.id);
    expect(oldMerchant).toMatchObject({ leg: 'merchant', status: 'needs_attention' });
    expect(oldMerchant!.signature).not.toBeNull();

    const run = await replanCommand([deposit.id]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('merchant leg: cancelling its authorization');
    expect(run.stdout).toContain(`deposit ${deposit.id} re-planned (2 new leg(s)) and queued`);

    await fixture.waitForStatus(deposit.id, 'forwarded', 30_000);
    await waitFor(
      'every leg settled',
      async () => (await payoutRows(deposit.id)).every((row) => ['cancelled', 'confirmed'].includes(row.status)),
      20_000,
    );

    const rows = await payoutRows(deposit.id);
    expect(rows.map((row) => [row.leg, row.status, row.replaces_payout_id])).toEqual([
      ['merchant', 'cancelled', null],
      ['platform', 'cancelled', null],
      ['merchant', 'confirmed', oldMerchant!.id],
      ['platform', 'confirmed', oldPlatform!.id],
    ]);
    expect(rows[2]!.authorization_nonce).not.toBe(oldMerchant!.authorization_nonce);
    expect(rows[2]!.to_address).toBe(wallet.payoutAddress.toLowerCase());

    // Paid exactly once: the merchant and the fee, nothing left behind, one callback.
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(9_900_000n);
    expect(await fixture.usdcBalance(fixture.platformFeeAddress)).toBeGreaterThanOrEqual(100_000n);
    expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
    expect(await fixture.deliveryOf(deposit.id)).toEqual([
      expect.objectContaining({ value_forwarded_coin: '9900000', fee_coin: '100000' }),
    ]);
    const uses = await fixture.authorizationUses(wallet.address);
    expect(uses.get(oldMerchant!.authorization_nonce)).toBeUndefined();
    expect(uses.get(rows[2]!.authorization_nonce)).toBe(1);

    // The operator's view of it (`gateway story`), found by the deposit's transaction hash: the
    // needs_attention, both plans in order, the cancellations and the payouts with their hashes.
    const story = await gatewayStory(deposit.txHash);
    expect([story.code, story.stderr]).toEqual([0, '']);
    const lines = story.stdout.split('\n');
    const position = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
    const moments = [
      /wallet +created: temporary address/,
      new RegExp(`deposit ${deposit.id} +seen: 10 USDC .* tx ${deposit.txHash}`),
      new RegExp(`payout ${oldMerchant!.id} \\(merchant\\) +needs attention: payout_address_blacklisted`),
      new RegExp(`payout ${oldMerchant!.id} \\(merchant\\) +cancel transaction 0x[0-9a-f]{64}`),
      new RegExp(
        `payout ${rows[2]!.id} \\(merchant\\) +planned for deposit ${deposit.id}: 9\\.9 USDC to ${rows[2]!.to_address}, now confirmed, ` +
          `replaces payout ${oldMerchant!.id}`,
      ),
      new RegExp(`payout ${rows[2]!.id} \\(merchant\\) +confirmed: tx 0x[0-9a-f]{64} in block \\d+`),
    ].map(position);
    expect({ missing: moments.flatMap((index, i) => (index > 0 ? [] : [i])), story: story.stdout }).toEqual({
      missing: [],
      story: story.stdout,
    });
    expect([...moments].sort((x, y) => x - y)).toEqual(moments);

    // The old authorization is cancelled on chain: its signature can never move the funds.
    const cancelled = await fixture.rpc.getContractEvents({
      address: fixture.token,
      abi: usdcAbi,
      eventName: 'AuthorizationCanceled',
      args: { authorizer: wallet.address, nonce: oldMerchant!.authorization_nonce as Hex },
      fromBlock: 0n,
      strict: true,
    });
    expect(cancelled).toHaveLength(1);
    const transactions = await fixture.transactionsOf(deposit.id);
    expect(transactions.filter((t) => t.reason === 'cancel').map((t) => [t.leg, t.status, t.tx_hash])).toEqual([
      ['merchant', 'mined', cancelled[0]!.transactionHash],
    ]);
    const oldTransfer = transferOf(wallet.address, oldMerchant!);
    await expect(fixture.rpc.call({ account: anvilAccounts[2].address, to: fixture.token, data: oldTransfer })).rejects.toThrow(
      /authorization is used or canceled/,
    );
  });

  it('a cancellation mined but not final: no new plan and nothing paid until it is final, then paid once', async () => {
    const { wallet, deposit } = await fixture.payoutAddressBlocked(6n * USDC);
    await setTestUsdcBlacklisted(fixture.tokenAdmin, wallet.payoutAddress, false);
    const [oldMerchant] = await payoutRows(deposit.id);
    // The command reads the chain through a node whose finality stalls before the cancellation.
    const proxy = await RpcProxy.start(fixture.anvil.rpcUrl);
    try {
      proxy.finalizedTag = { stalledAt: await fixture.rpc.getBlockNumber() };
      const env = fixture.env({ CHAIN_RPC_URL: proxy.url });
      const waiting = await replanCommand([deposit.id, '--timeout', '2'], env);
      expect({ code: waiting.code, stderr: waiting.stderr }).toEqual({
        code: 3,
        stderr:
          `gateway deposits replan: the cancellations of the merchant leg(s) are not final yet; run gateway deposits replan ` +
          `${deposit.id} again\n`,
      });
      expect(waiting.stdout).toContain('merchant leg: cancelling its authorization');
      expect(waiting.stdout).not.toContain('new plan');

      // The cancellation is mined, so the old authorization cannot pay on this chain; but a reorg
      // could still drop it, so the old plan stands and nothing new exists or is paid.
      const cancel = (await fixture.transactionsOf(deposit.id)).filter((t) => t.reason === 'cancel');
      expect(cancel).toHaveLength(1);
      expect((await fixture.rpc.getTransactionReceipt({ hash: cancel[0]!.tx_hash as Hex })).status).toBe('success');
      expect(await fixture.depositStatus(deposit.id)).toBe('needs_attention');
      expect((await payoutRows(deposit.id)).map((row) => [row.leg, row.status])).toEqual([
        ['merchant', 'needs_attention'],
        ['platform', expect.not.stringMatching(/^(cancelled|confirmed)$/)],
      ]);
      expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(0n);
      expect(await fixture.usdcBalance(wallet.address)).toBe(deposit.amount);

      // Final now: the same command finds the mined cancellation (sends no second one) and re-plans.
      proxy.finalizedTag = 'pass';
      const replanned = await replanCommand([deposit.id], env);
      expect({ code: replanned.code, stderr: replanned.stderr }).toEqual({ code: 0, stderr: '' });
      expect(replanned.stdout).toContain(`deposit ${deposit.id} re-planned (2 new leg(s)) and queued`);
      expect((await fixture.transactionsOf(deposit.id)).filter((t) => t.reason === 'cancel').map((t) => [t.tx_hash, t.status])).toEqual([
        [cancel[0]!.tx_hash, 'mined'],
      ]);
    } finally {
      await proxy.close();
    }

    await fixture.waitForStatus(deposit.id, 'forwarded', 30_000);
    await waitFor('the temporary wallet emptied', async () => (await fixture.usdcBalance(wallet.address)) === 0n, 20_000);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(5_940_000n);
    const uses = await fixture.authorizationUses(wallet.address);
    expect(uses.get(oldMerchant!.authorization_nonce)).toBeUndefined();
    expect(await fixture.deliveryOf(deposit.id)).toHaveLength(1);
  });

  it('a fee leg that needs attention on a forwarded deposit: replan pays the fee to the address configured now, no second callback', async () => {
    const { wallet, deposit } = await fixture.forwardedWithFeeLegBlocked(5n * USDC);

    const listed = await replanCommand(['--list']);
    expect(listed.stdout).toContain(`deposit ${deposit.id}  forwarded  leg needs attention`);
    expect(listed.stdout).toMatch(/platform\s+needs_attention\s+0\.05 USDC to 0x[0-9a-f]{40}\s+fee_address_blacklisted/);

    const newFeeAddress = freshAddress();
    // The operator configures the new fee address for the worker too: a worker pays only the legs
    // its own plan gives (to another fee address a leg needs attention, plan_mismatch).
    await fixture.stopApp();
    await fixture.startApp({ PLATFORM_FEE_ADDRESS: newFeeAddress });
    const run = await replanCommand([deposit.id], fixture.env({ PLATFORM_FEE_ADDRESS: newFeeAddress }));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    // The fee leg was signed before its estimate failed: its authorization is cancelled on chain first.
    expect(run.stdout).toContain('platform leg: cancelling its authorization');
    expect(run.stdout).toContain(`platform leg: new plan, 50000 base units to ${newFeeAddress.toLowerCase()}`);

    await waitFor('the fee paid to the new address', async () => (await fixture.usdcBalance(newFeeAddress)) === 50_000n, 30_000);
    await waitFor(
      'the new fee leg confirmed',
      async () =>
        (await payoutRows(deposit.id)).map((row) => `${row.leg} ${row.status}`).join() ===
        'merchant confirmed,platform cancelled,platform confirmed',
      20_000,
    );
    expect(await fixture.depositStatus(deposit.id)).toBe('forwarded');
    expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(4_950_000n);
    expect(await fixture.deliveryOf(deposit.id)).toHaveLength(1);
    expect((await replanCommand(['--list'])).stdout).toBe('no deposit needs attention\n');
  });

  it('an old authorization relayed by someone else before the replan: confirmed as paid, not planned again, paid once', async () => {
    const { wallet, deposit } = await fixture.payoutAddressBlocked(4n * USDC);
    await setTestUsdcBlacklisted(fixture.tokenAdmin, wallet.payoutAddress, false);

    // Anyone holding the signed authorization can relay it once the address is cleared.
    const [oldMerchant] = await payoutRows(deposit.id);
    const relayed = await outsiderClient().sendTransaction({ to: fixture.token, data: transferOf(wallet.address, oldMerchant!) });
    expect((await fixture.rpc.waitForTransactionReceipt({ hash: relayed })).status).toBe('success');

    const run = await replanCommand([deposit.id]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain(`merchant leg: its authorization was used after all (tx ${relayed}); confirmed, not re-planned`);
    expect(run.stdout).toContain(`deposit ${deposit.id} re-planned (1 new leg(s); paid after all: merchant) and queued`);

    await fixture.waitForStatus(deposit.id, 'forwarded', 30_000);
    await waitFor(
      'every leg settled',
      async () => (await payoutRows(deposit.id)).every((row) => ['cancelled', 'confirmed'].includes(row.status)),
      20_000,
    );
    expect((await payoutRows(deposit.id)).map((row) => [row.leg, row.status])).toEqual([
      ['merchant', 'confirmed'],
      ['platform', 'cancelled'],
      ['platform', 'confirmed'],
    ]);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(3_960_000n);
    expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
    expect(await fixture.deliveryOf(deposit.id)).toEqual([expect.objectContaining({ txid_out: relayed, value_forwarded_coin: '3960000' })]);
  });

  it('a paused token refuses the cancellation: replan says so and records nothing; after the unpause it goes through', async () => {
    const { wallet, deposit } = await fixture.payoutAddressBlocked(3n * USDC);
    await setTestUsdcBlacklisted(fixture.tokenAdmin, wallet.payoutAddress, false);

    await setTestUsdcPaused(fixture.tokenAdmin, true);
    try {
      const refused = await replanCommand([deposit.id]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^gateway deposits replan: .*Pausable: paused/);
      expect((await fixture.transactionsOf(deposit.id)).filter((t) => t.reason === 'cancel')).toEqual([]);
      expect(await fixture.depositStatus(deposit.id)).toBe('needs_attention');
    } finally {
      await setTestUsdcPaused(fixture.tokenAdmin, false);
    }

    expect((await replanCommand([deposit.id])).code).toBe(0);
    await fixture.waitForStatus(deposit.id, 'forwarded', 30_000);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(2_970_000n);
  });

  it('refuses a deposit with nothing to re-plan, an unknown one, and bad arguments', async () => {
    await fixture.startApp();
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 2n * USDC);
    await fixture.enqueue(deposit.id);
    await fixture.waitForStatus(deposit.id, 'forwarded', 20_000);

    expect(await replanCommand([deposit.id])).toMatchObject({
      code: 1,
      stderr: `gateway deposits replan: deposit ${deposit.id} is forwarded and none of its legs needs attention: nothing to re-plan\n`,
    });
    expect(await replanCommand(['999999'])).toMatchObject({ code: 1, stderr: 'gateway deposits replan: no deposit 999999\n' });
    for (const args of [[], ['abc'], [deposit.id, '--timeout'], [deposit.id, '--timeout', '0'], ['--list', 'x']]) {
      const usage = await replanCommand(args);
      expect(usage).toMatchObject({ code: 2, stdout: '' });
      expect(usage.stderr).toMatch(
        /^gateway deposits replan: .+\nusage: gateway deposits replan \(<deposit id> \[--timeout <seconds>\] \| --list\) \[--json\]\n$/,
      );
    }
  });
});
