import { randomBytes, randomUUID } from 'node:crypto';
import { finalDeposit, TEST_CHAIN_ID } from './support/deposit-rows';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { PayoutRepository, type NewPayoutLeg, type SignedRelayerTransaction } from '../src/repositories/payout-repository';
import { SettlementRepository } from '../src/repositories/settlement-repository';

let db: TestDatabase;
let payouts: PayoutRepository;
let settlements: SettlementRepository;

const CHAIN_ID = TEST_CHAIN_ID;
const RELAYER = `0x${'ab'.repeat(20)}`;
const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;

beforeAll(async () => {
  db = await createTestDatabase('payouts');
  payouts = new PayoutRepository(db.pool);
  settlements = new SettlementRepository(db.pool);
});
afterAll(() => db.drop());

function legs(from: string, amounts: [bigint, bigint]): NewPayoutLeg[] {
  return (['merchant', 'platform'] as const).map((leg, i) => ({
    leg,
    fromAddress: from,
    toAddress: hex(20),
    amount: amounts[i]!,
    authorizationNonce: hex(32),
    validBefore: 2_000_000_000n,
  }));
}

function signed(): SignedRelayerTransaction {
  return { txHash: hex(32), rawTx: hex(120), gasLimit: 100_000n, maxFeePerGas: 30n, maxPriorityFeePerGas: 2n };
}

describe('SettlementRepository', () => {
  it('plans a final deposit once: the second planner finds it no longer final and writes nothing', async () => {
    const { depositId, from } = await finalDeposit(db.pool);
    const results = await Promise.all([
      settlements.startForwarding(depositId, legs(from, [990_000n, 10_000n])),
      settlements.startForwarding(depositId, legs(from, [990_000n, 10_000n])),
    ]);
    expect(results.sort()).toEqual([false, true]);
    expect(await payouts.listLegs(depositId)).toHaveLength(2);
    expect((await settlements.findDeposit(depositId))?.status).toBe('forwarding');
  });

  it('holds dust only from final', async () => {
    const { depositId } = await finalDeposit(db.pool, 5n);
    expect(await settlements.holdDust(depositId)).toBe(true);
    expect(await settlements.holdDust(depositId)).toBe(false);
    expect((await settlements.findDeposit(depositId))?.status).toBe('held');
  });

  it('marks forwarded and writes the callback delivery together, once', async () => {
    const { depositId, from } = await finalDeposit(db.pool);
    await settlements.startForwarding(depositId, legs(from, [990_000n, 10_000n]));
    const deposit = (await settlements.findDeposit(depositId))!;
    const delivery = {
      walletId: deposit.walletId,
      depositId,
      valueCoin: 1_000_000n,
      valueForwardedCoin: 990_000n,
      feeCoin: 10_000n,
      txidIn: deposit.txHash,
      txidOut: hex(32),
    };
    const first = await settlements.completeForwarding({ ...delivery, id: randomUUID() });
    const again = await settlements.completeForwarding({ ...delivery, id: randomUUID() });
    // This deposit was written final without a final_at, so how long it had been final is not known; its
    // wallet has no attempt with an expectation, so the order's total alone was written.
    expect(first).toEqual({ id: expect.any(String), status: 'pending', finalForSeconds: null, order: { totalUsdc: 1_000_000n } });
    // The repeat finds that delivery: nothing was written, no figures.
    expect(again).toEqual({ id: first!.id, status: 'pending', finalForSeconds: null });
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM callback_deliveries WHERE deposit_id = $1', [depositId]);
    expect(rows[0].n).toBe(1);
  });

  it('lets one holder at a time lock a deposit', async () => {
    const { depositId } = await finalDeposit(db.pool);
    const first = await settlements.tryLockDeposit(depositId);
    expect(first).toBeDefined();
    expect(await settlements.tryLockDeposit(depositId)).toBeUndefined();
    await first!.release();
    const second = await settlements.tryLockDeposit(depositId);
    expect(second).toBeDefined();
    await second!.release();
  });

  it('never holds the deposit with the same id in another schema of the database', async () => {
    const { depositId } = await finalDeposit(db.pool);
    const other = await createTestDatabase('payouts_other');
    const here = await settlements.tryLockDeposit(depositId);
    const there = await new SettlementRepository(other.pool).tryLockDeposit(depositId);
    await Promise.all([here?.release(), there?.release()]);
    await other.drop();
    expect(here).toBeDefined();
    expect(there).toBeDefined();
  });
});

describe('PayoutRepository', () => {
  it('hands out every relayer nonce once under concurrency, never below the chain pending count', async () => {
    const { depositId, from } = await finalDeposit(db.pool);
    await settlements.startForwarding(depositId, legs(from, [990_000n, 10_000n]));
    const [leg] = await payouts.listLegs(depositId);
    let pendingOnChain = 7n;
    const allocated = await Promise.all(
      Array.from({ length: 20 }, () =>
        payouts.recordWithNewNonce({
          payoutId: leg!.id,
          chainId: CHAIN_ID,
          relayerAddress: RELAYER,
          reason: 'initial',
          readPendingNonce: async () => pendingOnChain,
          sign: async () => signed(),
        }),
      ),
    );
    expect(allocated.map((t) => t.relayerNonce).sort((a, b) => Number(a - b))).toEqual(
      Array.from({ length: 20 }, (_, i) => 7n + BigInt(i)),
    );
    // Someone else used the relayer account: the next nonce steps over theirs.
    pendingOnChain = 40n;
    const next = await payouts.recordWithNewNonce({
      payoutId: leg!.id,
      chainId: CHAIN_ID,
      relayerAddress: RELAYER,
      reason: 'new-nonce',
      readPendingNonce: async () => pendingOnChain,
      sign: async () => signed(),
    });
    expect(next.relayerNonce).toBe(40n);
  });

  it('allocates no nonce when signing or recording fails', async () => {
    const { depositId, from } = await finalDeposit(db.pool);
    await settlements.startForwarding(depositId, legs(from, [990_000n, 10_000n]));
    const [leg] = await payouts.listLegs(depositId);
    const relayer = hex(20);
    const request = {
      payoutId: leg!.id,
      chainId: CHAIN_ID,
      relayerAddress: relayer,
      reason: 'initial' as const,
      readPendingNonce: async () => 3n,
    };
    await expect(payouts.recordWithNewNonce({ ...request, sign: async () => Promise.reject(new Error('signer down')) })).rejects.toThrow(
      'signer down',
    );
    expect((await payouts.recordWithNewNonce({ ...request, sign: async () => signed() })).relayerNonce).toBe(3n);
  });

  it('lists legs and transactions in the order they were written, past id 9 → 10', async () => {
    const { depositId, from } = await finalDeposit(db.pool);
    await settlements.startForwarding(depositId, legs(from, [990_000n, 10_000n]));
    const [leg] = await payouts.listLegs(depositId);
    const recorded = [];
    for (let i = 0; i < 12; i += 1) {
      recorded.push(
        await payouts.recordReplacement({
          payoutId: leg!.id,
          chainId: CHAIN_ID,
          relayerAddress: RELAYER,
          relayerNonce: 99n,
          reason: 'fee-bump',
          signed: signed(),
        }),
      );
    }
    expect((await payouts.listTransactions(leg!.id)).map((t) => t.txHash)).toEqual(recorded.map((t) => t.txHash));
    expect((await payouts.listLegs(depositId)).map((l) => l.leg)).toEqual(['merchant', 'platform']);
  });

  it('confirms a leg with the paying transaction and marks the others replaced', async () => {
    const { depositId, from } = await finalDeposit(db.pool);
    await settlements.startForwarding(depositId, legs(from, [990_000n, 10_000n]));
    const [leg] = await payouts.listLegs(depositId);
    const base = { payoutId: leg!.id, chainId: CHAIN_ID, relayerAddress: RELAYER, relayerNonce: 5n };
    const first = await payouts.recordReplacement({ ...base, reason: 'initial', signed: signed() });
    const second = await payouts.recordReplacement({ ...base, reason: 'fee-bump', signed: signed() });
    await payouts.confirmLeg(leg!.id, second.txHash, 1234n);
    const [confirmed] = await payouts.listLegs(depositId);
    expect(confirmed).toMatchObject({ status: 'confirmed', txHash: second.txHash, blockNumber: 1234n });
    expect((await payouts.listTransactions(leg!.id)).map((t) => [t.txHash, t.status])).toEqual([
      [first.txHash, 'replaced'],
      [second.txHash, 'mined'],
    ]);
  });
});
