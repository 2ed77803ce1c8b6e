import { randomBytes, randomUUID } from 'node:crypto';
import {
  canMove,
  DECLINE_KINDS,
  DEPOSIT_MOVES,
  DEPOSIT_STATUSES,
  PAYMENT_STATUSES,
  NEEDS_ATTENTION_REASONS,
  PAYOUT_LEG_MOVES,
  PAYOUT_LEG_STATUSES,
  PAYOUT_TRANSACTION_MOVES,
  PAYOUT_TRANSACTION_STATUSES,
  OTHER_TOKEN_DEPOSIT_STATUSES,
  RECOVERY_EMAIL_STATES,
  RECOVERY_FAILURE_REASONS,
  RECOVERY_SKIP_REASONS,
  RECOVERY_TRIGGERS,
  type DepositStatus,
  type PayoutLegStatus,
  type PayoutTransactionStatus,
  type StatusMove,
} from '@gateway/domain';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { DepositRepository } from '../src/repositories/deposit-repository';
import { PayoutRepository } from '../src/repositories/payout-repository';
import { OperatorPayoutRepository } from '../src/repositories/operator-payout-repository';
import { SettlementRepository } from '../src/repositories/settlement-repository';
import { TokenRepository } from '../src/repositories/token-repository';
import { DATABASE_APPS } from '../src/app-roles';

// Each guarded status update of the three repositories, run from every status of its machine
// against a real schema: the statuses it accepts must be exactly the module's move (its `from`,
// plus its `to`, where the row already is). A guard written by hand that drifts from
// packages/domain/src/settlement-states.ts fails here.

const CHAIN_ID = 137;
const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;

let db: TestDatabase;
let deposits: DepositRepository;
let settlements: SettlementRepository;
let payouts: PayoutRepository;
let handPayouts: OperatorPayoutRepository;

beforeAll(async () => {
  db = await createTestDatabase('state_guards');
  deposits = new DepositRepository(db.pool, CHAIN_ID);
  settlements = new SettlementRepository(db.pool);
  payouts = new PayoutRepository(db.pool);
  handPayouts = new OperatorPayoutRepository(db.pool);
});
afterAll(() => db.drop());

let hdIndex = 0;

interface TestDeposit {
  id: string;
  walletId: string;
  temporaryAddress: string;
  txHash: string;
  blockHash: string;
}

interface TestWallet {
  walletId: string;
  temporaryAddress: string;
}

async function newWallet(): Promise<TestWallet> {
  const temporaryAddress = hex(20);
  const { rows: wallet } = await db.pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
     VALUES ($1, $2, $3, $4, 'https://shop.example/ipn?w=' || $2, $5, $6) RETURNING id::text AS id`,
    [hdIndex++, temporaryAddress, randomUUID(), hex(20), randomBytes(32), randomUUID()],
  );
  return { walletId: wallet[0]!.id, temporaryAddress };
}

/** A deposit in `status` (of a new wallet unless one is given), with what its CHECK constraints ask of that status. */
async function depositIn(status: DepositStatus, wallet?: TestWallet, token: string | null = null): Promise<TestDeposit> {
  const { walletId, temporaryAddress } = wallet ?? (await newWallet());
  const txHash = hex(32);
  const blockHash = hex(32);
  const carrier = status === 'swept' ? (await depositIn('forwarding')).id : null;
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO deposits (chain_id, tx_hash, log_index, block_number, block_hash, wallet_id, from_address, amount, status,
                           attention_reason, swept_by_deposit_id, token)
     VALUES ($1, $2, 0, 10, $3, $4, $5, 1000000, $6, $7, $8, $9) RETURNING id::text AS id`,
    [CHAIN_ID, txHash, blockHash, walletId, hex(20), status, status === 'needs_attention' ? 'transfer_reverted' : null, carrier, token],
  );
  return { id: rows[0]!.id, walletId, temporaryAddress, txHash, blockHash };
}

async function depositStatus(id: string): Promise<string> {
  return (await db.pool.query<{ status: string }>('SELECT status FROM deposits WHERE id = $1', [id])).rows[0]!.status;
}

function leg(deposit: TestDeposit) {
  return {
    leg: 'merchant' as const,
    fromAddress: deposit.temporaryAddress,
    toAddress: hex(20),
    amount: 1_000_000n,
    authorizationNonce: hex(32),
    validBefore: 2_000_000_000n,
  };
}

/** A leg in `status` of a deposit in `depositStatus`. */
async function legIn(status: PayoutLegStatus, ofDeposit: DepositStatus = 'forwarding'): Promise<{ deposit: TestDeposit; legId: string }> {
  const deposit = await depositIn(ofDeposit);
  const planned = leg(deposit);
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO payouts (deposit_id, leg, from_address, to_address, amount, authorization_nonce, valid_before, status,
                          tx_hash, attention_reason, cancelled_at)
     VALUES ($1, 'merchant', $2, $3, 1000000, $4, 2000000000, $5, $6, $7, $8) RETURNING id::text AS id`,
    [
      deposit.id,
      planned.fromAddress,
      planned.toAddress,
      planned.authorizationNonce,
      status,
      status === 'confirmed' ? hex(32) : null,
      status === 'needs_attention' ? 'transfer_reverted' : null,
      status === 'cancelled' ? new Date() : null,
    ],
  );
  return { deposit, legId: rows[0]!.id };
}

async function legStatus(id: string): Promise<string> {
  return (await db.pool.query<{ status: string }>('SELECT status FROM payouts WHERE id = $1', [id])).rows[0]!.status;
}

let relayerNonce = 0n;
function signedTransaction() {
  return { txHash: hex(32), rawTx: hex(120), gasLimit: 100_000n, maxFeePerGas: 30n, maxPriorityFeePerGas: 2n };
}

/** A relayer transaction recorded for the leg, as the settlement-worker records one before it sends it. */
function recordTransaction(legId: string, reason: 'initial' | 'cancel' = 'initial') {
  return payouts.recordReplacement({
    payoutId: legId,
    chainId: CHAIN_ID,
    relayerAddress: hex(20),
    relayerNonce: ++relayerNonce,
    reason,
    signed: signedTransaction(),
  });
}

/** A leg's relayer transaction put in `status`. */
async function transactionIn(legId: string, status: string) {
  const transaction = await recordTransaction(legId);
  await db.pool.query('UPDATE payout_transactions SET status = $2 WHERE id = $1', [transaction.id, status]);
  return transaction;
}

/** The statuses from which running `update` leaves a row in `move.to`. */
async function acceptedFrom<S extends string>(
  statuses: readonly S[],
  move: StatusMove<S>,
  update: (from: S) => Promise<string>,
): Promise<string[]> {
  const accepted: string[] = [];
  for (const status of statuses) if ((await update(status)) === move.to) accepted.push(status);
  return accepted.sort();
}

const expected = <S extends string>(move: StatusMove<S>) => [...new Set<string>([...move.from, move.to])].sort();

/** Every guarded update that moves a deposit, with the move it makes. */
const DEPOSIT_UPDATES: [string, StatusMove<DepositStatus>, (deposit: TestDeposit) => Promise<unknown>][] = [
  [
    'DepositRepository.markFinal',
    DEPOSIT_MOVES.markFinal,
    (d) => deposits.markFinal(db.pool, [{ blockNumber: 10n, blockHash: d.blockHash }]),
  ],
  [
    'DepositRepository.markOrphaned',
    DEPOSIT_MOVES.markOrphaned,
    (d) => deposits.markOrphaned(db.pool, [{ blockNumber: 10n, blockHash: d.blockHash }]),
  ],
  [
    'DepositRepository.recordSeen (the log read again from another block)',
    DEPOSIT_MOVES.recordSeen,
    (d) =>
      deposits.recordSeen(db.pool, [
        {
          token: hex(20),
          txHash: d.txHash,
          logIndex: 0,
          blockNumber: 11n,
          blockHash: hex(32),
          blockTime: new Date(),
          walletId: d.walletId,
          fromAddress: hex(20),
          amount: 1_000_000n,
        },
      ]),
  ],
  ['SettlementRepository.holdDust', DEPOSIT_MOVES.holdDust, (d) => settlements.holdDust(d.id)],
  ['SettlementRepository.holdOtherToken', DEPOSIT_MOVES.holdOtherToken, (d) => settlements.holdOtherToken(d.id)],
  [
    'OperatorPayoutRepository.record',
    DEPOSIT_MOVES.recordOperatorPayout,
    (d) =>
      handPayouts.record(d.id, {
        chainId: CHAIN_ID,
        txHash: hex(32),
        logIndex: 0,
        blockNumber: 11n,
        blockHash: hex(32),
        token: hex(20),
        fromAddress: d.temporaryAddress,
        toAddress: hex(20),
        amount: 990_000n,
        paid: 'merchant_share',
      }),
  ],
  ['SettlementRepository.startForwarding', DEPOSIT_MOVES.startForwarding, (d) => settlements.startForwarding(d.id, [leg(d)])],
  [
    'SettlementRepository.startForwarding (sweep-dust)',
    DEPOSIT_MOVES.forwardHeldDust,
    (d) => settlements.startForwarding(d.id, [leg(d)], { sweptDepositIds: [], from: 'held' }),
  ],
  [
    'SettlementRepository.completeForwarding',
    DEPOSIT_MOVES.completeForwarding,
    (d) =>
      settlements.completeForwarding({
        id: randomUUID(),
        walletId: d.walletId,
        depositId: d.id,
        valueCoin: 1_000_000n,
        valueForwardedCoin: 990_000n,
        feeCoin: 10_000n,
        txidIn: d.txHash,
        txidOut: hex(32),
      }),
  ],
  ['SettlementRepository.needAttention', DEPOSIT_MOVES.needAttention, (d) => settlements.needAttention(d.id, 'transfer_reverted', 'x')],
  ['SettlementRepository.replan', DEPOSIT_MOVES.replan, (d) => settlements.replan(d.id, [], [])],
  [
    'SettlementRepository.startForwarding (the held dust another deposit of the wallet carries)',
    DEPOSIT_MOVES.sweepDust,
    async (d) => {
      const carrier = await depositIn('final', d);
      return settlements.startForwarding(carrier.id, [leg(carrier)], { sweptDepositIds: [d.id], from: 'final' });
    },
  ],
];

describe('deposit guards follow DEPOSIT_MOVES', () => {
  it.each(DEPOSIT_UPDATES)('%s', async (_name, move, update) => {
    const accepted = await acceptedFrom(DEPOSIT_STATUSES, move, async (status) => {
      const deposit = await depositIn(status);
      await update(deposit);
      return depositStatus(deposit.id);
    });
    expect(accepted).toEqual(expected(move));
  });
});

/** Every guarded update that moves a leg of a forwarding deposit, with the move it makes (cancel is replan's, below). */
const LEG_UPDATES: [string, StatusMove<PayoutLegStatus>, (legId: string) => Promise<unknown>][] = [
  ['PayoutRepository.saveSignature', PAYOUT_LEG_MOVES.sign, (legId) => payouts.saveSignature(legId, 2_000_000_100n, hex(65))],
  ['PayoutRepository.recordReplacement (a payout transaction recorded)', PAYOUT_LEG_MOVES.broadcast, (legId) => recordTransaction(legId)],
  ['PayoutRepository.confirmLeg', PAYOUT_LEG_MOVES.confirm, (legId) => payouts.confirmLeg(legId, hex(32), 12n)],
  [
    'PayoutRepository.markLegNeedsAttention',
    PAYOUT_LEG_MOVES.needAttention,
    (legId) => payouts.markLegNeedsAttention(legId, 'transfer_reverted', 'x'),
  ],
];

describe('payout leg guards follow PAYOUT_LEG_MOVES', () => {
  it.each(LEG_UPDATES)('%s', async (_name, move, update) => {
    const accepted = await acceptedFrom(PAYOUT_LEG_STATUSES, move, async (status) => {
      const { legId } = await legIn(status);
      await update(legId);
      return legStatus(legId);
    });
    expect(accepted).toEqual(expected(move));
  });

  it('SettlementRepository.replan (the old legs cancelled)', async () => {
    const accepted = await acceptedFrom(PAYOUT_LEG_STATUSES, PAYOUT_LEG_MOVES.cancel, async (status) => {
      const { deposit, legId } = await legIn(status, 'needs_attention');
      await settlements.replan(deposit.id, [legId], []);
      return legStatus(legId);
    });
    expect(accepted).toEqual(expected(PAYOUT_LEG_MOVES.cancel));
  });

  it('a cancellation recorded for a leg does not move the leg', async () => {
    const { legId } = await legIn('needs_attention', 'needs_attention');
    await recordTransaction(legId, 'cancel');
    expect(await legStatus(legId)).toBe('needs_attention');
  });
});

describe('payout transaction guards follow PAYOUT_TRANSACTION_MOVES', () => {
  it.each(Object.entries(PAYOUT_TRANSACTION_MOVES))('PayoutRepository.markTransaction: %s', async (_name, move) => {
    const accepted = await acceptedFrom(PAYOUT_TRANSACTION_STATUSES, move as StatusMove<PayoutTransactionStatus>, async (status) => {
      const { legId } = await legIn('signed');
      const transaction = await transactionIn(legId, status);
      await payouts.markTransaction(transaction.id, move.to);
      return (await payouts.listTransactions(legId))[0]!.status;
    });
    expect(accepted).toEqual(expected(move as StatusMove<PayoutTransactionStatus>));
  });
});

// The tests above only hold the repositories to settlement-states.ts, so a wrong move added there
// passes them. These moves must never happen, whatever the module says: written by hand from the
// business rules, each is checked against the module (canMove) and against every guarded update
// that moves a row to its target (the row stays where it was).
const EVERY_DEPOSIT_STATUS = [...DEPOSIT_STATUSES];
const refusedFrom = (from: DepositStatus, to: readonly DepositStatus[], why: string) => to.map((status) => [from, status, why] as const);
const except = (...statuses: DepositStatus[]) => EVERY_DEPOSIT_STATUS.filter((status) => !statuses.includes(status));

const IMPOSSIBLE_DEPOSIT_MOVES = [
  ...refusedFrom('forwarded', except('forwarded'), 'a forwarded deposit was paid and called back: any move on pays or calls twice'),
  ...refusedFrom('swept', except('swept'), 'swept dust was paid by the payout that carried it'),
  ...refusedFrom(
    'seen',
    ['held', 'forwarding', 'forwarded', 'needs_attention', 'swept', 'held_for_operator', 'paid_by_operator'],
    'nothing is held or paid from a deposit a reorg can still remove',
  ),
  ...refusedFrom(
    'final',
    ['seen', 'orphaned', 'forwarded', 'needs_attention', 'swept'],
    'a final block stays; a deposit is paid only through its legs',
  ),
  ...refusedFrom('final', ['paid_by_operator'], 'only a deposit held for the operator is paid by hand'),
  ...refusedFrom(
    'orphaned',
    except('orphaned', 'seen'),
    'an orphaned deposit is off the chain: it comes back as seen, and waits for finality again',
  ),
  ...refusedFrom(
    'held',
    ['seen', 'final', 'orphaned', 'forwarded', 'needs_attention', 'paid_by_operator'],
    'held dust leaves only carried by a payout',
  ),
  ...refusedFrom(
    'forwarding',
    ['seen', 'final', 'orphaned', 'held', 'swept', 'paid_by_operator'],
    'a deposit with legs written is never planned from scratch again',
  ),
  ...refusedFrom(
    'needs_attention',
    ['seen', 'final', 'orphaned', 'held', 'forwarded', 'swept', 'paid_by_operator'],
    'a parked deposit leaves only by a re-plan',
  ),
  ...refusedFrom(
    'held_for_operator',
    except('held_for_operator', 'paid_by_operator'),
    'a deposit of the other USDC waits for a person: nothing forwards, sweeps or calls it back; the person records it paid',
  ),
  ...refusedFrom('paid_by_operator', except('paid_by_operator'), 'the operator paid it by hand: any move on pays it twice'),
  ...refusedFrom('held', ['held_for_operator'], 'held dust is in the settled token: it goes with the next payout of its wallet'),
];

const IMPOSSIBLE_LEG_MOVES: (readonly [PayoutLegStatus, PayoutLegStatus, string])[] = [
  ...(['planned', 'signed', 'broadcast', 'needs_attention', 'cancelled'] as const).map(
    (to) => ['confirmed', to, 'a confirmed leg is paid: moving it on would pay it again'] as const,
  ),
  ...(['planned', 'signed', 'broadcast', 'needs_attention', 'confirmed'] as const).map(
    (to) => ['cancelled', to, 'its authorization was cancelled on chain, or its deposit re-planned: it never pays'] as const,
  ),
  ['broadcast', 'planned', 'a transaction carrying it may be on the chain'],
  ['broadcast', 'signed', 'a transaction carrying it may be on the chain'],
  ['signed', 'planned', 'its signature exists'],
  ...(['planned', 'signed', 'broadcast'] as const).map(
    (to) => ['needs_attention', to, 'a leg that needs attention is never sent again'] as const,
  ),
];

const IMPOSSIBLE_TRANSACTION_MOVES: (readonly [PayoutTransactionStatus, PayoutTransactionStatus, string])[] = [
  ...(['mined', 'reverted', 'replaced'] as const).flatMap((from) =>
    PAYOUT_TRANSACTION_STATUSES.filter((to) => to !== from).map((to) => [from, to, 'a late answer never undoes a receipt'] as const),
  ),
  ['sent', 'recorded', 'the node has it'],
];

describe('moves that must be impossible', () => {
  describe('deposits', () => {
    it.each(IMPOSSIBLE_DEPOSIT_MOVES)('%s → %s (%s)', async (from, to) => {
      expect(canMove(DEPOSIT_MOVES, from, to)).toBe(false);
      const updates = DEPOSIT_UPDATES.filter(([, move]) => move.to === to);
      expect(updates.length).toBeGreaterThan(0);
      for (const [name, , update] of updates) {
        const row = await depositIn(from);
        await update(row);
        expect([name, await depositStatus(row.id)]).toEqual([name, from]);
      }
    });
  });

  describe('payout legs', () => {
    it.each(IMPOSSIBLE_LEG_MOVES)('%s → %s (%s)', async (from, to) => {
      expect(canMove(PAYOUT_LEG_MOVES, from, to)).toBe(false);
      // Legs are written planned and no update writes planned: the module is all there is to check.
      if (to === 'planned') return;
      if (to === 'cancelled') {
        // Only a re-plan cancels, of a parked deposit or of a forwarded one (a fee or affiliate leg).
        for (const depositStatusNow of ['needs_attention', 'forwarded'] as const) {
          const { deposit: parked, legId } = await legIn(from, depositStatusNow);
          await settlements.replan(parked.id, [legId], []);
          expect([depositStatusNow, await legStatus(legId)]).toEqual([depositStatusNow, from]);
        }
        return;
      }
      const updates = LEG_UPDATES.filter(([, move]) => move.to === to);
      expect(updates.length).toBeGreaterThan(0);
      for (const [name, , update] of updates) {
        const { legId } = await legIn(from);
        await update(legId);
        expect([name, await legStatus(legId)]).toEqual([name, from]);
      }
    });
  });

  describe('payout transactions', () => {
    it.each(IMPOSSIBLE_TRANSACTION_MOVES)('%s → %s (%s)', async (from, to) => {
      expect(canMove(PAYOUT_TRANSACTION_MOVES, from, to)).toBe(false);
      const { legId } = await legIn('signed');
      const transaction = await transactionIn(legId, from);
      await payouts.markTransaction(transaction.id, to);
      expect((await payouts.listTransactions(legId))[0]!.status).toBe(from);
    });
  });
});

describe('the CHECK constraints list the module statuses', () => {
  async function checkList(constraint: string): Promise<string[]> {
    const { rows } = await db.pool.query<{ definition: string }>(
      `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = $1 AND connamespace = $2::regnamespace`,
      [constraint, db.schema],
    );
    expect(rows).toHaveLength(1);
    return [...rows[0]!.definition.matchAll(/'([a-z_-]+)'::text/g)].map((match) => match[1]!).sort();
  }

  it.each([
    ['deposits_status_check', DEPOSIT_STATUSES],
    ['payouts_status_check', PAYOUT_LEG_STATUSES],
    ['payout_transactions_status_check', PAYOUT_TRANSACTION_STATUSES],
    ['deposits_attention_reason_check', NEEDS_ATTENTION_REASONS],
    ['payouts_attention_reason_check', NEEDS_ATTENTION_REASONS],
    ['payments_status_check', PAYMENT_STATUSES],
    ['payments_provider_decline_kind_check', DECLINE_KINDS],
    ['recovery_emails_state_check', RECOVERY_EMAIL_STATES],
    ['recovery_emails_trigger_check', RECOVERY_TRIGGERS],
    ['recovery_emails_skip_reason_check', RECOVERY_SKIP_REASONS],
    ['recovery_emails_failure_reason_check', RECOVERY_FAILURE_REASONS],
  ] as const)('%s', async (constraint, statuses) => {
    expect(await checkList(constraint)).toEqual([...statuses].sort());
  });
});

// Migration 023's trigger: a deposit whose token is not the one chain_tokens records holds only the
// statuses OTHER_TOKEN_DEPOSIT_STATUSES lists, whatever statement writes it.
describe('a deposit of the other USDC', () => {
  const settled = hex(20);
  const other = hex(20);
  beforeAll(async () => {
    await db.pool.query('INSERT INTO chain_tokens (chain_id, address) VALUES ($1, $2)', [CHAIN_ID, settled]);
  });
  afterAll(async () => {
    await db.pool.query('DELETE FROM chain_tokens WHERE address = $1', [settled]);
  });

  const accepts = async (status: DepositStatus, token: string) =>
    depositIn(status, undefined, token).then(
      () => true,
      (error: { code?: string }) => {
        if (error.code !== '23514') throw error;
        return false;
      },
    );

  it('is written only in the statuses the module lists for it; the settled token in any', async () => {
    const accepted: string[] = [];
    for (const status of DEPOSIT_STATUSES) {
      if (await accepts(status, other)) accepted.push(status);
      expect([status, await accepts(status, settled)]).toEqual([status, true]);
    }
    expect(accepted.sort()).toEqual([...OTHER_TOKEN_DEPOSIT_STATUSES].sort());
  });

  it('is never planned for forwarding, even by a statement that skips the guards', async () => {
    const deposit = await depositIn('final', undefined, other);
    await expect(settlements.startForwarding(deposit.id, [leg(deposit)])).rejects.toMatchObject({ code: '23514' });
    expect(await depositStatus(deposit.id)).toBe('final');
    expect(await payouts.listLegs(deposit.id)).toEqual([]);
    await expect(db.pool.query(`UPDATE deposits SET status = 'forwarded' WHERE id = $1`, [deposit.id])).rejects.toMatchObject({
      code: '23514',
    });
    expect(await settlements.holdOtherToken(deposit.id)).toBe(true);
    expect(await depositStatus(deposit.id)).toBe('held_for_operator');
  });

  // Issue 35: a second row in chain_tokens naming the other USDC disarmed the trigger. No app may
  // write one; the owner's function an app records its token with records a first token only.
  it.each(DATABASE_APPS)('stays held whatever %s records as its token', async (app) => {
    const pool = db.appPool(app);
    await expect(pool.query('INSERT INTO chain_tokens (chain_id, address) VALUES ($1, $2)', [CHAIN_ID, other])).rejects.toMatchObject({
      code: '42501',
    });
    if (app !== 'callback-worker') {
      expect(await new TokenRepository(pool).register({ chainId: CHAIN_ID, address: other })).toMatch(/is not the token this database/);
    }
    expect(await new TokenRepository(db.pool).list()).toEqual([{ chainId: CHAIN_ID, address: settled }]);
    await expect(depositIn('forwarding', undefined, other)).rejects.toMatchObject({ code: '23514' });
  });
});
