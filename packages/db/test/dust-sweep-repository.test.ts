import { randomBytes } from 'node:crypto';
import { insertDeposit, insertWallet } from './support/deposit-rows';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import type { NewPayoutLeg } from '../src/repositories/payout-repository';
import { SettlementRepository } from '../src/repositories/settlement-repository';

let db: TestDatabase;
let settlements: SettlementRepository;

const CHAIN_ID = 137;
const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;

beforeAll(async () => {
  db = await createTestDatabase('dust_sweep');
  settlements = new SettlementRepository(db.pool);
});
afterAll(() => db.drop());

const wallet = () => insertWallet(db.pool);
const deposit = (walletId: string, amount: bigint, status: 'final' | 'held') => insertDeposit(db.pool, walletId, amount, status);

function oneLeg(from: string, amount: bigint): NewPayoutLeg[] {
  return [{ leg: 'merchant', fromAddress: from, toAddress: hex(20), amount, authorizationNonce: hex(32), validBefore: 2_000_000_000n }];
}

describe('sweeping held dust', () => {
  it('marks the held deposits swept by the deposit whose payout carries them, in the transaction that plans it', async () => {
    const w = await wallet();
    const dust = [await deposit(w.id, 3_000n, 'held'), await deposit(w.id, 4_000n, 'held')];
    const next = await deposit(w.id, 1_000_000n, 'final');
    expect((await settlements.heldDust(CHAIN_ID, w.id)).map((held) => [held.id, held.amount])).toEqual([
      [dust[0], 3_000n],
      [dust[1], 4_000n],
    ]);

    expect(await settlements.startForwarding(next, oneLeg(w.address, 1_007_000n), { sweptDepositIds: dust, from: 'final' })).toBe(true);
    const { rows } = await db.pool.query(
      'SELECT id::text, status, swept_by_deposit_id::text AS carrier FROM deposits WHERE wallet_id = $1 ORDER BY id',
      [w.id],
    );
    expect(rows).toEqual([
      { id: dust[0], status: 'swept', carrier: next },
      { id: dust[1], status: 'swept', carrier: next },
      { id: next, status: 'forwarding', carrier: null },
    ]);
    expect((await settlements.findDeposit(next))?.sweptAmount).toBe(7_000n);
    expect(await settlements.heldDust(CHAIN_ID, w.id)).toEqual([]);
  });

  it('sweeps a held deposit once: two payouts racing for it, one plans, the other writes nothing and stays final', async () => {
    const w = await wallet();
    const dust = await deposit(w.id, 5_000n, 'held');
    const [a, b] = [await deposit(w.id, 2_000_000n, 'final'), await deposit(w.id, 3_000_000n, 'final')];
    const results = await Promise.all([
      settlements.startForwarding(a, oneLeg(w.address, 2_005_000n), { sweptDepositIds: [dust], from: 'final' }),
      settlements.startForwarding(b, oneLeg(w.address, 3_005_000n), { sweptDepositIds: [dust], from: 'final' }),
    ]);
    expect(results.sort()).toEqual([false, true]);
    const { rows } = await db.pool.query<{ id: string; status: string; legs: number }>(
      `SELECT d.id::text, d.status, (SELECT count(*)::int FROM payouts p WHERE p.deposit_id = d.id) AS legs
       FROM deposits d WHERE d.id = ANY($1::bigint[]) ORDER BY d.id`,
      [[a, b]],
    );
    expect(rows.map((row) => [row.status, row.legs]).sort()).toEqual([
      ['final', 0],
      ['forwarding', 1],
    ]);
  });

  it("an operator's sweep moves a held carrier to forwarding, and never a deposit of another wallet", async () => {
    const w = await wallet();
    const other = await wallet();
    const older = await deposit(w.id, 3_000n, 'held');
    const carrier = await deposit(w.id, 4_000n, 'held');
    const foreign = await deposit(other.id, 4_000n, 'held');
    expect(
      await settlements.startForwarding(carrier, oneLeg(w.address, 11_000n), { sweptDepositIds: [older, foreign], from: 'held' }),
    ).toBe(false);
    expect(await settlements.startForwarding(carrier, oneLeg(w.address, 7_000n), { sweptDepositIds: [older], from: 'held' })).toBe(true);
    expect((await settlements.findDeposit(carrier))?.status).toBe('forwarding');
    expect((await settlements.findDeposit(foreign))?.status).toBe('held');
    expect((await settlements.walletsWithHeldDust(CHAIN_ID)).map((held) => held.walletId)).toEqual([other.id]);
  });
});
