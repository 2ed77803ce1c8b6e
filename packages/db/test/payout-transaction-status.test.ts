import { randomBytes } from 'node:crypto';
import { finalDeposit, TEST_CHAIN_ID } from './support/deposit-rows';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { PayoutRepository, type PayoutTransactionRow } from '../src/repositories/payout-repository';
import { SettlementRepository } from '../src/repositories/settlement-repository';

let db: TestDatabase;
let payouts: PayoutRepository;
let settlements: SettlementRepository;

const CHAIN_ID = TEST_CHAIN_ID;
const RELAYER = `0x${'cd'.repeat(20)}`;
const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;

beforeAll(async () => {
  db = await createTestDatabase('payout_tx_status');
  payouts = new PayoutRepository(db.pool);
  settlements = new SettlementRepository(db.pool);
});
afterAll(() => db.drop());

let relayerNonce = 0n;

/** A planned merchant leg with one relayer transaction recorded for it (status `recorded`). */
async function recordedTransaction(): Promise<PayoutTransactionRow> {
  const { depositId, from } = await finalDeposit(db.pool);
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
