import {
  ACTIVE_PAYOUT_LEG_STATUSES,
  canMove,
  DEPOSIT_MOVES,
  DEPOSIT_STATUSES,
  DEPOSIT_STATUSES_OWING_SETTLEMENT,
  OTHER_TOKEN_DEPOSIT_STATUSES,
  legHoldsDepositBack,
  NEEDS_ATTENTION_REASONS,
  PAYOUT_LEG_MOVES,
  PAYOUT_LEG_STATUSES,
  PAYOUT_LEG_STATUSES_UNPAID,
  PAYOUT_TRANSACTION_MOVES,
  PAYOUT_TRANSACTION_STATUSES,
  RECIPIENT_BLACKLISTED_REASON,
  sqlStatusList,
  type StatusMove,
} from '../src';

const machines = [
  { name: 'deposit', statuses: DEPOSIT_STATUSES, moves: DEPOSIT_MOVES, initial: 'seen' },
  { name: 'payout leg', statuses: PAYOUT_LEG_STATUSES, moves: PAYOUT_LEG_MOVES, initial: 'planned' },
  { name: 'payout transaction', statuses: PAYOUT_TRANSACTION_STATUSES, moves: PAYOUT_TRANSACTION_MOVES, initial: 'recorded' },
] as const;

function movesOf(moves: Readonly<Record<string, StatusMove<string>>>): StatusMove<string>[] {
  return Object.values(moves);
}

/** Statuses no move leaves: once there, a row stays there. */
function terminal(statuses: readonly string[], moves: Readonly<Record<string, StatusMove<string>>>): string[] {
  return statuses.filter((status) => !movesOf(moves).some((move) => move.from.includes(status) && move.to !== status));
}

describe.each(machines)('the $name state machine', ({ statuses, moves, initial }) => {
  it('moves only between its own statuses, each move from somewhere, each status listed once', () => {
    expect(new Set(statuses).size).toBe(statuses.length);
    for (const move of movesOf(moves)) {
      expect(statuses).toContain(move.to);
      expect(move.from.length).toBeGreaterThan(0);
      for (const from of move.from) expect(statuses).toContain(from);
      expect(move.requires.length).toBeGreaterThan(10);
    }
  });

  it('reaches every status from the one rows are written with', () => {
    const reached = new Set<string>([initial]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const move of movesOf(moves)) {
        if (!reached.has(move.to) && move.from.some((from) => reached.has(from))) {
          reached.add(move.to);
          grew = true;
        }
      }
    }
    expect([...reached].sort()).toEqual([...statuses].sort());
  });
});

describe('deposit moves', () => {
  it('ends in forwarded, orphaned only while unfinal, swept, and paid by the operator (the other USDC, held for it first)', () => {
    expect(terminal(DEPOSIT_STATUSES, DEPOSIT_MOVES).sort()).toEqual(['forwarded', 'paid_by_operator', 'swept']);
    expect(canMove(DEPOSIT_MOVES, 'orphaned', 'seen')).toBe(true);
    expect(canMove(DEPOSIT_MOVES, 'final', 'orphaned')).toBe(false);
  });

  it('parks a deposit only while it is forwarding, and lets it out only by a re-plan back to forwarding', () => {
    const into = DEPOSIT_STATUSES.filter((status) => canMove(DEPOSIT_MOVES, status, 'needs_attention'));
    const outOf = DEPOSIT_STATUSES.filter((status) => canMove(DEPOSIT_MOVES, 'needs_attention', status));
    expect(into).toEqual(['forwarding']);
    expect(outOf).toEqual(['forwarding']);
    expect(canMove(DEPOSIT_MOVES, 'needs_attention', 'forwarded')).toBe(false);
  });

  it('never forwards a deposit twice nor plans one twice', () => {
    expect(DEPOSIT_STATUSES.filter((status) => canMove(DEPOSIT_MOVES, status, 'forwarded'))).toEqual(['forwarding']);
    expect(canMove(DEPOSIT_MOVES, 'forwarding', 'forwarding')).toBe(false);
  });

  it('holds a deposit of the other USDC only once it is final, and lists for it no status that pays or calls back', () => {
    expect(DEPOSIT_STATUSES.filter((status) => canMove(DEPOSIT_MOVES, status, 'held_for_operator'))).toEqual(['final']);
    expect([...OTHER_TOKEN_DEPOSIT_STATUSES].sort()).toEqual(['final', 'held_for_operator', 'orphaned', 'paid_by_operator', 'seen']);
  });

  it('records a payout by hand only for a deposit held for the operator', () => {
    expect(DEPOSIT_STATUSES.filter((status) => canMove(DEPOSIT_MOVES, status, 'paid_by_operator'))).toEqual(['held_for_operator']);
    expect(DEPOSIT_STATUSES.filter((status) => canMove(DEPOSIT_MOVES, 'paid_by_operator', status))).toEqual([]);
  });

  it('owes settlement work (a job) in final and forwarding only: needs_attention waits for a person', () => {
    expect([...DEPOSIT_STATUSES_OWING_SETTLEMENT]).toEqual(['final', 'forwarding']);
  });
});

describe('payout leg moves', () => {
  it('ends in confirmed or cancelled', () => {
    expect(terminal(PAYOUT_LEG_STATUSES, PAYOUT_LEG_MOVES).sort()).toEqual(['cancelled', 'confirmed']);
  });

  it('a leg that needs attention is either found paid or cancelled, never sent again', () => {
    const outOf = PAYOUT_LEG_STATUSES.filter(
      (status) => status !== 'needs_attention' && canMove(PAYOUT_LEG_MOVES, 'needs_attention', status),
    );
    expect(outOf.sort()).toEqual(['cancelled', 'confirmed']);
    expect(PAYOUT_LEG_MOVES.broadcast.from).not.toContain('needs_attention');
    expect(PAYOUT_LEG_MOVES.sign.from).not.toContain('needs_attention');
  });

  it('active legs are the plan (all but cancelled); unpaid ones are those settlement drives', () => {
    expect([...ACTIVE_PAYOUT_LEG_STATUSES].sort()).toEqual(PAYOUT_LEG_STATUSES.filter((status) => status !== 'cancelled').sort());
    expect([...PAYOUT_LEG_STATUSES_UNPAID]).toEqual(['planned', 'signed', 'broadcast']);
  });
});

describe('payout transaction moves', () => {
  it('never leaves mined, reverted or replaced (a late answer cannot undo a receipt)', () => {
    expect(terminal(PAYOUT_TRANSACTION_STATUSES, PAYOUT_TRANSACTION_MOVES).sort()).toEqual(['mined', 'replaced', 'reverted']);
    expect(canMove(PAYOUT_TRANSACTION_MOVES, 'mined', 'sent')).toBe(false);
  });
});

describe('needs_attention reasons', () => {
  it('names a blacklisted recipient by its leg, with reasons of the list', () => {
    expect(RECIPIENT_BLACKLISTED_REASON).toEqual({
      merchant: 'payout_address_blacklisted',
      platform: 'fee_address_blacklisted',
      affiliate: 'affiliate_address_blacklisted',
    });
    for (const reason of Object.values(RECIPIENT_BLACKLISTED_REASON)) expect(NEEDS_ATTENTION_REASONS).toContain(reason);
  });

  it('parks the deposit for the merchant leg only (any leg when the split pays the merchant nothing)', () => {
    expect(legHoldsDepositBack('merchant', ['merchant', 'platform'])).toBe(true);
    expect(legHoldsDepositBack('platform', ['merchant', 'platform'])).toBe(false);
    expect(legHoldsDepositBack('affiliate', ['merchant', 'platform', 'affiliate'])).toBe(false);
    expect(legHoldsDepositBack('platform', ['platform', 'affiliate'])).toBe(true);
  });
});

describe('sqlStatusList', () => {
  it('quotes each status for IN (...), and refuses an empty list', () => {
    expect(sqlStatusList(['final', 'forwarding'])).toBe("'final', 'forwarding'");
    expect(() => sqlStatusList([])).toThrow(/guards nothing/);
  });
});
