import {
  canMove,
  RECOVERY_EMAIL_MOVES,
  RECOVERY_MAX_LATENESS_MS,
  recoveryAttemptOutcome,
  recoveryDecision,
  recoveryDueAt,
  recoveryEvent,
  recoveryLinkPath,
  recoveryLinkTarget,
  recoveryReason,
  recoveryScanWindow,
  recoveryTiming,
  smtpFailureKind,
  smtpUrlRefusal,
  type RecoveryFacts,
  type RecoveryPayment,
} from '../src';

const MIN = 60_000;
const timing = recoveryTiming(15, 30);
const t0 = new Date('2026-11-28T12:00:00Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * MIN);

const declined: RecoveryPayment = { status: 'redirected', providerStatus: 'declined', providerUpdatedAt: at(5), createdAt: t0 };
const unanswered: RecoveryPayment = { status: 'redirected', providerStatus: null, providerUpdatedAt: null, createdAt: t0 };

function facts(overrides: Partial<RecoveryFacts> = {}): RecoveryFacts {
  return { state: 'scheduled', dueAt: at(20), payment: declined, orderPaid: false, newerAttempt: false, ...overrides };
}

describe('recoveryTiming', () => {
  it('takes a delay of 10 to 30 minutes and an abandonment of 15 minutes to a day', () => {
    expect(recoveryTiming(10, 15)).toEqual({ delayMs: 10 * MIN, abandonedAfterMs: 15 * MIN });
    expect(recoveryTiming(30, 1440)).toEqual({ delayMs: 30 * MIN, abandonedAfterMs: 1440 * MIN });
  });

  it('refuses a delay outside the window, naming the setting', () => {
    expect(() => recoveryTiming(9, 30)).toThrow('RECOVERY_EMAIL_DELAY_MINUTES must be a whole number of minutes from 10 to 30');
    expect(() => recoveryTiming(31, 30)).toThrow('RECOVERY_EMAIL_DELAY_MINUTES');
    expect(() => recoveryTiming(12.5, 30)).toThrow('RECOVERY_EMAIL_DELAY_MINUTES');
    expect(() => recoveryTiming(15, 14)).toThrow('RECOVERY_EMAIL_ABANDONED_AFTER_MINUTES');
  });
});

describe('recoveryEvent: what an e-mail would be about', () => {
  it('a decline or failure, at the time it was recorded', () => {
    expect(recoveryEvent(declined, timing)).toEqual({ trigger: 'declined', at: at(5) });
    expect(recoveryEvent({ ...declined, providerStatus: 'failed' }, timing)).toEqual({ trigger: 'declined', at: at(5) });
  });

  it('a checkout the provider said nothing about, abandoned once the abandonment time has passed since it was handed out', () => {
    expect(recoveryEvent(unanswered, timing)).toEqual({ trigger: 'abandoned', at: at(30) });
  });

  it('nothing while the provider reports progress, nor for a checkout never handed out', () => {
    for (const providerStatus of ['pending', 'charged', 'paid'] as const) {
      expect(recoveryEvent({ ...unanswered, providerStatus }, timing)).toBeNull();
    }
    expect(recoveryEvent({ ...unanswered, status: 'checkout_failed' }, timing)).toBeNull();
    expect(recoveryEvent({ ...unanswered, status: 'creating' }, timing)).toBeNull();
  });

  it('is due the delay after the event', () => {
    expect(recoveryDueAt(at(5), timing)).toEqual(at(20));
  });

  it("gives the scanner's query the same bounds, and nothing older than the lateness limit", () => {
    const now = at(200);
    expect(recoveryScanWindow(now, timing)).toEqual({
      declinedSince: new Date(now.getTime() - RECOVERY_MAX_LATENESS_MS),
      abandonedCreatedBefore: at(170),
      abandonedCreatedSince: new Date(at(170).getTime() - RECOVERY_MAX_LATENESS_MS),
    });
  });
});

describe('recoveryDecision', () => {
  it('sends a declined payment once due, and waits until then', () => {
    expect(recoveryDecision(facts(), at(20), timing)).toEqual({ kind: 'send', trigger: 'declined' });
    expect(recoveryDecision(facts(), at(19), timing)).toEqual({ kind: 'wait', until: at(20) });
  });

  it('sends an abandoned one as abandoned', () => {
    expect(recoveryDecision(facts({ payment: unanswered, dueAt: at(45) }), at(45), timing)).toEqual({ kind: 'send', trigger: 'abandoned' });
  });

  it('never when the order got paid meanwhile, whatever else holds', () => {
    expect(recoveryDecision(facts({ orderPaid: true, newerAttempt: true }), at(20), timing)).toEqual({
      kind: 'skip',
      reason: 'order_paid',
    });
  });

  it('skips a payment the customer tried again after', () => {
    expect(recoveryDecision(facts({ newerAttempt: true }), at(20), timing)).toEqual({ kind: 'skip', reason: 'tried_again' });
  });

  it('skips an abandoned checkout the provider has since reported progress on', () => {
    const pending = { ...unanswered, providerStatus: 'pending' as const, providerUpdatedAt: at(40) };
    expect(recoveryDecision(facts({ payment: pending, dueAt: at(45) }), at(45), timing)).toEqual({
      kind: 'skip',
      reason: 'provider_progress',
    });
  });

  it('moves the due time when an abandoned checkout is declined later: the e-mail follows the decline', () => {
    const lateDecline = { ...declined, providerUpdatedAt: at(40) };
    expect(recoveryDecision(facts({ payment: lateDecline, dueAt: at(45) }), at(45), timing)).toEqual({ kind: 'wait', until: at(55) });
    expect(recoveryDecision(facts({ payment: lateDecline, dueAt: at(45) }), at(55), timing)).toEqual({ kind: 'send', trigger: 'declined' });
  });

  it('skips one that comes far too late (a worker stopped for hours)', () => {
    const late = new Date(at(20).getTime() + RECOVERY_MAX_LATENESS_MS + 1);
    expect(recoveryDecision(facts(), late, timing)).toEqual({ kind: 'skip', reason: 'too_late' });
  });

  it('does nothing with a record that is not scheduled: never twice', () => {
    for (const state of ['sending', 'sent', 'failed', 'skipped'] as const) {
      expect(recoveryDecision(facts({ state }), at(20), timing)).toEqual({ kind: 'none' });
    }
  });
});

describe('the machine', () => {
  it('sends from a claim only, and never leaves sent or failed', () => {
    expect(canMove(RECOVERY_EMAIL_MOVES, 'scheduled', 'sending')).toBe(true);
    expect(canMove(RECOVERY_EMAIL_MOVES, 'sending', 'sent')).toBe(true);
    expect(canMove(RECOVERY_EMAIL_MOVES, 'sending', 'scheduled')).toBe(true);
    for (const to of ['scheduled', 'sending', 'sent', 'failed', 'skipped'] as const) {
      expect(canMove(RECOVERY_EMAIL_MOVES, 'sent', to)).toBe(false);
      expect(canMove(RECOVERY_EMAIL_MOVES, 'failed', to)).toBe(false);
    }
    expect(canMove(RECOVERY_EMAIL_MOVES, 'scheduled', 'sent')).toBe(false);
  });
});

describe('SMTP failures: at most once', () => {
  it('retries what certainly did not go: no connection, or a 4xx, even at the end of the data', () => {
    expect(smtpFailureKind({ afterData: false })).toBe('not_sent');
    expect(smtpFailureKind({ responseCode: 421, afterData: false })).toBe('not_sent');
    expect(smtpFailureKind({ responseCode: 451, afterData: true })).toBe('not_sent');
  });

  it('gives up on a 5xx, and on a failure once the data was handed over (it may have gone)', () => {
    expect(smtpFailureKind({ responseCode: 550, afterData: false })).toBe('rejected');
    expect(smtpFailureKind({ responseCode: 554, afterData: true })).toBe('rejected');
    expect(smtpFailureKind({ afterData: true })).toBe('unknown');
  });

  it('retries on a bounded schedule (1, 5, 15 minutes), then fails', () => {
    const down = { afterData: false };
    expect(recoveryAttemptOutcome(down, 1, t0)).toEqual({ kind: 'retry', at: at(1) });
    expect(recoveryAttemptOutcome(down, 2, t0)).toEqual({ kind: 'retry', at: at(5) });
    expect(recoveryAttemptOutcome(down, 3, t0)).toEqual({ kind: 'retry', at: at(15) });
    expect(recoveryAttemptOutcome(down, 4, t0)).toEqual({ kind: 'failed', reason: 'retries_used' });
    expect(recoveryAttemptOutcome({ responseCode: 550, afterData: false }, 1, t0)).toEqual({ kind: 'failed', reason: 'rejected' });
    expect(recoveryAttemptOutcome({ afterData: true }, 1, t0)).toEqual({ kind: 'failed', reason: 'outcome_unknown' });
  });
});

describe("the message's facts", () => {
  it("repeats a decline's reason as a sentence, never an abandoned one's, nor markup, control characters or a log dump", () => {
    expect(recoveryReason('declined', 'card declined by issuer')).toBe('Card declined by issuer.');
    expect(recoveryReason('abandoned', 'card declined by issuer')).toBeNull();
    expect(recoveryReason('declined', null)).toBeNull();
    expect(recoveryReason('declined', '<b>declined</b>')).toBeNull();
    expect(recoveryReason('declined', 'declined\nstack: at x')).toBeNull();
    expect(recoveryReason('declined', 'x'.repeat(300))).toBeNull();
    expect(recoveryReason('declined', '   ')).toBeNull();
  });

  it("links to the payment's resume page with the key, URL-encoded", () => {
    expect(recoveryLinkPath('0f8fad5b-d9cb-469f-a165-70867728950e', 'ab-_c')).toBe(
      '/payment/0f8fad5b-d9cb-469f-a165-70867728950e/resume?key=ab-_c',
    );
  });

  it('takes a declined customer to the second chance, an abandoned one back to the checkout', () => {
    expect(recoveryLinkTarget('declined', false)).toBe('receipt');
    expect(recoveryLinkTarget('failed', false)).toBe('receipt');
    expect(recoveryLinkTarget(null, false)).toBe('checkout');
    expect(recoveryLinkTarget(null, true)).toBe('receipt');
    expect(recoveryLinkTarget('pending', false)).toBe('receipt');
  });
});

describe('smtpUrlRefusal', () => {
  it('takes smtps:// anywhere, and smtp:// with requireTLS or to a loopback relay in production', () => {
    expect(smtpUrlRefusal('smtps://u:p@mail.example.com:465', true)).toBeUndefined();
    expect(smtpUrlRefusal('smtp://u:p@mail.example.com:587?requireTLS=true', true)).toBeUndefined();
    expect(smtpUrlRefusal('smtp://127.0.0.1:25', true)).toBeUndefined();
    expect(smtpUrlRefusal('smtp://localhost:25', true)).toBeUndefined();
    expect(smtpUrlRefusal('smtp://u:p@mail.example.com:587', false)).toBeUndefined();
  });

  it('refuses in production an smtp:// URL whose password could go in clear, and anything not SMTP, never echoing it', () => {
    const refusal = smtpUrlRefusal('smtp://u:secret-pass@mail.example.com:587', true);
    expect(refusal).toContain('?requireTLS=true');
    expect(refusal).not.toContain('secret-pass');
    expect(smtpUrlRefusal('https://mail.example.com', false)).toContain('smtps://');
    expect(smtpUrlRefusal('smtp ://x', false)).toContain('not a URL');
    expect(smtpUrlRefusal('smtp://u:secret-pass@mail.example.com:587?requireTLS=false', true)).toContain('requireTLS');
  });
});
