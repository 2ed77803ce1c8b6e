import type { ProviderPaymentStatus } from './payment-progress';
import { asSentence, secondChanceOpen } from './second-chance';
import type { StatusMove } from './state-moves';

/**
 * One plain e-mail, once (issue 32): a customer whose payment was declined, or who left the
 * provider's checkout without finishing, is written to once, some minutes later, with a link back
 * to the same order. A record per order (`recovery_emails`, unique on the wallet) holds the state;
 * a BullMQ job per record is only a reminder to act on it, as callbacks are.
 */

/** Why the order is written to: its provider gave up on the payment, or the customer never finished at the provider. */
export const RECOVERY_TRIGGERS = ['declined', 'abandoned'] as const;
export type RecoveryTrigger = (typeof RECOVERY_TRIGGERS)[number];

export const RECOVERY_EMAIL_STATES = ['scheduled', 'sending', 'sent', 'failed', 'skipped'] as const;
export type RecoveryEmailState = (typeof RECOVERY_EMAIL_STATES)[number];

/**
 * Why a scheduled e-mail was not sent. tried_again: the customer started another attempt on the
 * order meanwhile (the order's newest attempt is written about if it too ends without USDC, so
 * this one skip may be taken back by a later schedule); every other reason is final.
 */
export const RECOVERY_SKIP_REASONS = ['order_paid', 'provider_progress', 'tried_again', 'too_late'] as const;
export type RecoverySkipReason = (typeof RECOVERY_SKIP_REASONS)[number];

/** The skips a newer eligible attempt of the same order may turn back into a schedule. */
export const RESCHEDULABLE_SKIP_REASONS: readonly RecoverySkipReason[] = ['tried_again'];

/**
 * Why an e-mail was given up on. rejected: the SMTP server refused it for good (5xx); retries_used:
 * the server could not take it, attempt after attempt; outcome_unknown: the connection ended after
 * the message was handed over, or the process stopped mid-send, so it may have gone: it is never
 * sent again (at most once, RECOVERY_EMAIL_MOVES.fail).
 */
export const RECOVERY_FAILURE_REASONS = ['rejected', 'retries_used', 'outcome_unknown'] as const;
export type RecoveryFailureReason = (typeof RECOVERY_FAILURE_REASONS)[number];

/**
 * The record's machine. At most once: `claim` is committed before the message is handed to the
 * SMTP server, and only an attempt that certainly did not hand it over (refused connection, a 4xx
 * before or at the end of DATA) goes back to `scheduled`; a send that may have gone, or a claim
 * whose process died, ends in `failed` (outcome_unknown). A customer asked twice to come back is
 * worse than one never asked.
 */
export const RECOVERY_EMAIL_MOVES = {
  schedule: {
    from: [],
    to: 'scheduled',
    requires: "the order's newest attempt declined or abandoned (recoveryEvent), an e-mail on it, no USDC into the wallet",
  },
  reschedule: {
    from: ['scheduled', 'skipped'],
    to: 'scheduled',
    requires: 'a newer attempt of the order is eligible; from skipped only for a RESCHEDULABLE_SKIP_REASONS reason',
  },
  claim: {
    from: ['scheduled'],
    to: 'sending',
    requires:
      "due, recoveryDecision says send; its trigger as the message tells it, the link's key hash and the attempt recorded before the SMTP call",
  },
  recordSent: { from: ['sending'], to: 'sent', requires: 'the SMTP server accepted the message (a 2xx after DATA)' },
  retry: {
    from: ['sending'],
    to: 'scheduled',
    requires: 'the SMTP server certainly did not take the message (smtpFailureKind not_sent) and the schedule has attempts left',
  },
  fail: {
    from: ['sending'],
    to: 'failed',
    requires: 'a 5xx refusal, the attempts used up, or an outcome unknown (a lease run out, a connection lost after the data)',
  },
  skip: { from: ['scheduled'], to: 'skipped', requires: 'recoveryDecision says skip, with its reason' },
} as const satisfies Record<string, StatusMove<RecoveryEmailState>>;

/** The operator's timing: how long after the decline (or the abandonment) the e-mail goes, and when a checkout counts as abandoned. */
export interface RecoveryTiming {
  /** RECOVERY_EMAIL_DELAY_MINUTES, within RECOVERY_DELAY_BOUNDS_MINUTES. */
  delayMs: number;
  /** RECOVERY_EMAIL_ABANDONED_AFTER_MINUTES: a checkout handed out this long ago with no word from the provider is abandoned. */
  abandonedAfterMs: number;
}

/** The delay the issue allows: one e-mail 10–30 minutes after the event. */
export const RECOVERY_DELAY_BOUNDS_MINUTES = { min: 10, max: 30 } as const;
export const DEFAULT_RECOVERY_DELAY_MINUTES = 15;
/** Provider checkouts run for minutes (card form, identity checks): under 15 minutes the customer may still be at it. */
export const RECOVERY_ABANDONED_AFTER_BOUNDS_MINUTES = { min: 15, max: 24 * 60 } as const;
export const DEFAULT_RECOVERY_ABANDONED_AFTER_MINUTES = 30;
/**
 * An event older than this is never scheduled (the feature switched on, a scanner stopped for a
 * day): a message about a payment long gone reads as spam. A scheduled one this late past its due
 * time is skipped (too_late).
 */
export const RECOVERY_MAX_LATENESS_MS = 2 * 3_600_000;

/** A delay setting in minutes, checked against the bounds; the error names what is allowed. */
export function recoveryTiming(delayMinutes: number, abandonedAfterMinutes: number): RecoveryTiming {
  const delay = RECOVERY_DELAY_BOUNDS_MINUTES;
  if (!Number.isInteger(delayMinutes) || delayMinutes < delay.min || delayMinutes > delay.max) {
    throw new Error(`RECOVERY_EMAIL_DELAY_MINUTES must be a whole number of minutes from ${delay.min} to ${delay.max}`);
  }
  const abandoned = RECOVERY_ABANDONED_AFTER_BOUNDS_MINUTES;
  if (!Number.isInteger(abandonedAfterMinutes) || abandonedAfterMinutes < abandoned.min || abandonedAfterMinutes > abandoned.max) {
    throw new Error(`RECOVERY_EMAIL_ABANDONED_AFTER_MINUTES must be a whole number of minutes from ${abandoned.min} to ${abandoned.max}`);
  }
  return { delayMs: delayMinutes * 60_000, abandonedAfterMs: abandonedAfterMinutes * 60_000 };
}

/** What a payment says about itself, for the recovery rules. */
export interface RecoveryPayment {
  /** payments.status: only a checkout handed out ('redirected') can be abandoned. */
  status: string;
  providerStatus: ProviderPaymentStatus | null;
  /** When the provider's status was last recorded (the decline's time). */
  providerUpdatedAt: Date | null;
  createdAt: Date;
}

/** The event an e-mail would be about, and when it happened; null when the payment is not (or not yet) one to write about. */
export function recoveryEvent(payment: RecoveryPayment, timing: RecoveryTiming): { trigger: RecoveryTrigger; at: Date } | null {
  if (secondChanceOpen(payment.providerStatus, false)) {
    return { trigger: 'declined', at: payment.providerUpdatedAt ?? payment.createdAt };
  }
  // Any word from the provider (pending, charged, paid) is progress: the customer is not left stranded.
  if (payment.providerStatus !== null || payment.status !== 'redirected') return null;
  return { trigger: 'abandoned', at: new Date(payment.createdAt.getTime() + timing.abandonedAfterMs) };
}

/** When the e-mail about an event goes out. */
export function recoveryDueAt(eventAt: Date, timing: RecoveryTiming): Date {
  return new Date(eventAt.getTime() + timing.delayMs);
}

/**
 * The bounds the scanner's query uses, the SQL twin of recoveryEvent: declines recorded since
 * `declinedSince`, checkouts created between `abandonedCreatedSince` and `abandonedCreatedBefore`.
 * Events older than RECOVERY_MAX_LATENESS_MS are left alone.
 */
export function recoveryScanWindow(now: Date, timing: RecoveryTiming) {
  const t = now.getTime();
  return {
    declinedSince: new Date(t - RECOVERY_MAX_LATENESS_MS),
    abandonedCreatedBefore: new Date(t - timing.abandonedAfterMs),
    abandonedCreatedSince: new Date(t - timing.abandonedAfterMs - RECOVERY_MAX_LATENESS_MS),
  };
}

/** What the sender knows of a record when its job runs. */
export interface RecoveryFacts {
  state: RecoveryEmailState;
  dueAt: Date;
  /** The record's payment as it stands now. */
  payment: RecoveryPayment;
  /** USDC into the order's wallet (not orphaned), or any attempt of the order the provider charged or paid. */
  orderPaid: boolean;
  /** Another attempt of the order was started after the record's payment. */
  newerAttempt: boolean;
}

export type RecoveryDecision =
  | { kind: 'send'; trigger: RecoveryTrigger }
  | { kind: 'skip'; reason: RecoverySkipReason }
  | { kind: 'wait'; until: Date }
  /** Not scheduled (sent, failed, skipped, or being sent by another worker): nothing to do. */
  | { kind: 'none' };

/** Whether to send the e-mail now, skip it for good (with why), or wait until it is due. */
export function recoveryDecision(facts: RecoveryFacts, now: Date, timing: RecoveryTiming): RecoveryDecision {
  if (facts.state !== 'scheduled') return { kind: 'none' };
  if (facts.orderPaid) return { kind: 'skip', reason: 'order_paid' };
  if (facts.newerAttempt) return { kind: 'skip', reason: 'tried_again' };
  const event = recoveryEvent(facts.payment, timing);
  if (event === null) return { kind: 'skip', reason: 'provider_progress' };
  // A decline recorded after the schedule (an abandoned checkout the provider then declined) moves the due time with it.
  const dueAt = new Date(Math.max(facts.dueAt.getTime(), recoveryDueAt(event.at, timing).getTime()));
  if (dueAt.getTime() > now.getTime()) return { kind: 'wait', until: dueAt };
  if (now.getTime() - dueAt.getTime() > RECOVERY_MAX_LATENESS_MS) return { kind: 'skip', reason: 'too_late' };
  return { kind: 'send', trigger: event.trigger };
}

/** How far an SMTP attempt got when it failed, from the SMTP client's error. */
export interface SmtpFailure {
  /** The server's reply code, when it replied. */
  responseCode?: number;
  /** Whether the message's data had been handed over (the client was past DATA's 354) when the failure came. */
  afterData: boolean;
}

/**
 * not_sent: certainly not taken (no connection, refused before the data, or a 4xx "not now");
 * rejected: refused for good (5xx); unknown: the connection failed once the data was handed over,
 * so the server may have taken it.
 */
export type SmtpFailureKind = 'not_sent' | 'rejected' | 'unknown';

export function smtpFailureKind(failure: SmtpFailure): SmtpFailureKind {
  const code = failure.responseCode;
  if (code !== undefined && code >= 500 && code <= 599) return 'rejected';
  // A reply says the server did not take the message: 4xx is "try later", also at the end of the data.
  if (code !== undefined && code >= 400 && code <= 499) return 'not_sent';
  return failure.afterData ? 'unknown' : 'not_sent';
}

/** Waits between attempts of an e-mail the SMTP server could not take: four attempts over about 20 minutes, then failed. */
export const RECOVERY_RETRY_DELAYS_MS: readonly number[] = [60_000, 5 * 60_000, 15 * 60_000];

export type RecoveryAttemptOutcome = { kind: 'retry'; at: Date } | { kind: 'failed'; reason: RecoveryFailureReason };

/** What a failed attempt (the `attempts`-th, counting it) leaves the record as. */
export function recoveryAttemptOutcome(
  failure: SmtpFailure,
  attempts: number,
  now: Date,
  delays: readonly number[] = RECOVERY_RETRY_DELAYS_MS,
): RecoveryAttemptOutcome {
  const kind = smtpFailureKind(failure);
  if (kind === 'rejected') return { kind: 'failed', reason: 'rejected' };
  if (kind === 'unknown') return { kind: 'failed', reason: 'outcome_unknown' };
  const wait = delays[attempts - 1];
  if (wait === undefined) return { kind: 'failed', reason: 'retries_used' };
  return { kind: 'retry', at: new Date(now.getTime() + wait) };
}

/** How long a claimed send may take before its record counts as stopped mid-send (outcome_unknown). */
export const RECOVERY_SEND_LEASE_MS = 5 * 60_000;

/** The longest provider reason the message repeats: a longer one is the provider's log, not a sentence for a customer. */
const MAX_REASON_LENGTH = 200;

/** The facts the message is written from (the app's view model turns them into words). */
export interface RecoveryMessageFacts {
  trigger: RecoveryTrigger;
  providerName: string;
  /** The order's amount and currency, as the customer was asked. */
  amount: string;
  currency: string;
  /** The provider's reason as a sentence (declined only), when it is short plain text. */
  reason: string | null;
  /** Where the customer goes: the same order, through its key. */
  link: string;
}

/** The provider's reason as the message may repeat it: plain, one line, short; null otherwise. */
export function recoveryReason(trigger: RecoveryTrigger, providerReason: string | null): string | null {
  if (trigger !== 'declined' || providerReason === null) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
  if (/[\u0000-\u001f\u007f<>]/.test(providerReason)) return null;
  const sentence = asSentence(providerReason);
  return sentence === '' || sentence.length > MAX_REASON_LENGTH ? null : sentence;
}

/** The path of the e-mailed link: the payment's own, with the key the e-mail alone carries. */
export function recoveryLinkPath(paymentId: string, key: string): string {
  return `/payment/${paymentId}/resume?key=${encodeURIComponent(key)}`;
}

/** How long the e-mailed link's key is honoured: as long as the browser keeps a payment's key. */
export const RECOVERY_LINK_LIFETIME_MS = 7 * 86_400_000;

/**
 * Where the e-mailed link takes its customer: the receipt, with its other providers, once the
 * provider gave up (the second chance); the payment's own checkout while the provider has said
 * nothing (the customer left it), which itself goes on to the receipt once the provider has an
 * order; the receipt for anything else.
 */
export function recoveryLinkTarget(providerStatus: ProviderPaymentStatus | null, usdcArrived: boolean): 'receipt' | 'checkout' {
  return providerStatus === null && !usdcArrived ? 'checkout' : 'receipt';
}

/**
 * Why an SMTP_URL is refused, or undefined: a URL that is not smtp:// or smtps://; in production, one
 * whose password could cross the network in clear (smtp:// to another host without
 * ?requireTLS=true: a server that offers no STARTTLS, or a network that strips it, would get it).
 * Never says the URL: it holds the password.
 */
export function smtpUrlRefusal(smtpUrl: string, production: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    return 'not a URL; write it as smtps://user:password@host:465 or smtp://user:password@host:587?requireTLS=true';
  }
  if (url.protocol !== 'smtps:' && url.protocol !== 'smtp:') return 'must start with smtps:// (TLS) or smtp:// (STARTTLS)';
  if (url.hostname === '') return 'names no host';
  const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\./.test(url.hostname);
  if (production && url.protocol === 'smtp:' && !loopback && url.searchParams.get('requireTLS') !== 'true') {
    return 'smtp:// to another host must add ?requireTLS=true in production (or use smtps://): the password must never cross the network in clear';
  }
  return undefined;
}
