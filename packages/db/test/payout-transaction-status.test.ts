import { randomBytes, randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { PayoutRepository, type PayoutTransactionRow } from '../src/repositories/payout-repository';
import { SettlementRepository } from '../src/repositories/settlement-repository';

let db: TestDatabase;
let payouts: PayoutRepository;
let settlements: SettlementRepository;

const CHAIN_ID = 137;
const RELAYER = `0x${'cd'.repeat(20)}`;
const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;

beforeAll(async () => {
  db = await createTestDatabase('payout_tx_status');
  payouts = new PayoutRepository(db.pool);
  settlements = new SettlementRepository(db.pool);
});
afterAll(() => db.drop());

let hdIndex = 0;
let relayerNonce = 0n;

/** A planned merchant leg with one relayer transaction recorded for it (status `recorded`). */
async function recordedTransaction(): Promise<PayoutTransactionRow> {
  const from = hex(20);
  const { rows: wallet } = await db.pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
     VALUES ($1, $2, $3, $4, 'https://shop.example/ipn?w=' || $2, $5, $6) RETURNING id::text AS id`,
    [hdIndex++, from, randomUUID(), hex(20), randomBytes(32), randomUUID()],
  );
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO deposits (chain_id, tx_hash, log_index, block_number, block_hash, wallet_id, from_address, amount, status)
     VALUES ($1, $2, 0, 1, $3, $4, $5, 1000000, 'final') RETURNING id::text AS id`,
    [CHAIN_ID, hex(32), hex(32), wallet[0]!.id, hex(20)],
  );
  const depositId = rows[0]!.id;
  await settlements.startForwarding(depositId, [
    {
      leg: 'merchant',
      fromAddress: from,
      toAddress: hex(20),
      amount: 1_000_000n,
      authorizationNonce: hex(32),
      validBefore: 2_000_000_000n,
    },
  ]);
  const [leg] = await payouts.listLegs(depositId);
  relayerNonce += 1n;
  return payouts.recordReplacement({
    payoutId: leg!.id,
    chainId: CHAIN_ID,
    relayerAddress: RELAYER,
    relayerNonce,
    reason: 'initial',
    signed: { txHash: hex(32), rawTx: hex(120), gasLimit: 100_000n, maxFeePerGas: 30n, maxPriorityFeePerGas: 2n },
  });
}

async function statusOf(transaction: PayoutTransactionRow): Promise<string> {
  const all = await payouts.listTransactions(transaction.payoutId);
  return all.find((row) => row.id === transaction.id)!.status;
}

describe('payout transaction status never moves back', () => {
  it('a late "sent" (a broadcast that returned after the receipt was read) leaves a mined transaction mined', async () => {
    const transaction = await recordedTransaction();
    await payouts.markTransaction(transaction.id, 'sent');
    await payouts.confirmLeg(transaction.payoutId, transaction.txHash, 77n);
    expect(await statusOf(transaction)).toBe('mined');

    await payouts.markTransaction(transaction.id, 'sent');
    expect(await statusOf(transaction)).toBe('mined');
  });

  it('a late "sent" leaves a reverted or replaced transaction as it is, and a recorded one becomes sent', async () => {
    const reverted = await recordedTransaction();
    await payouts.markTransaction(reverted.id, 'reverted');
    await payouts.markTransaction(reverted.id, 'sent');
    expect(await statusOf(reverted)).toBe('reverted');

    const replaced = await recordedTransaction();
    await payouts.confirmLeg(replaced.payoutId, hex(32), 78n);
    await payouts.markTransaction(replaced.id, 'sent');
    expect(await statusOf(replaced)).toBe('replaced');

    const fresh = await recordedTransaction();
    await payouts.markTransaction(fresh.id, 'sent');
    expect(await statusOf(fresh)).toBe('sent');
  });

  it('a mined transaction is not marked reverted afterwards, nor a reverted one mined', async () => {
    const mined = await recordedTransaction();
    await payouts.confirmLeg(mined.payoutId, mined.txHash, 79n);
    await payouts.markTransaction(mined.id, 'reverted');
    expect(await statusOf(mined)).toBe('mined');

    const reverted = await recordedTransaction();
    await payouts.markTransaction(reverted.id, 'reverted');
    await payouts.markTransaction(reverted.id, 'mined');
    expect(await statusOf(reverted)).toBe('reverted');
  });
});
