import type { Pool } from 'pg';
import {
  RECOVERY_LINK_LIFETIME_MS,
  recoveryScanWindow,
  type ProviderPaymentStatus,
  type RecoveryEmailState,
  type RecoveryFacts,
  type RecoveryFailureReason,
  type RecoverySkipReason,
  type RecoveryTiming,
  type RecoveryTrigger,
} from '@gateway/domain';

/** A record the scanner scheduled (new, or moved to the order's newer attempt). */
export interface ScheduledRecoveryEmail {
  id: string;
  dueAt: Date;
}

/** A record as its job reads it: the rules' facts and what the message is written from. */
export interface RecoveryEmailRecord {
  id: string;
  paymentId: string;
  trigger: RecoveryTrigger;
  attempts: number;
  email: string;
  provider: string;
  amount: string;
  currency: string;
  providerReason: string | null;
  facts: RecoveryFacts;
}

export interface ScheduledRecoveryRow {
  id: string;
  due_at: Date;
}

// The SQL twin of the domain's recoveryEvent: a decline or failure recorded, or a checkout handed
// out that the provider said nothing about. `$1` declined since, `$2`/`$3` abandoned created before/since.
const CANDIDATE_EVENT = `((p.provider_status IN ('declined', 'failed') AND p.provider_updated_at >= $1)
   OR (p.provider_status IS NULL AND p.status = 'redirected' AND p.created_at < $2 AND p.created_at >= $3))`;
// USDC in the order's wallet, or any attempt of the order charged or paid: the order needs no e-mail.
const ORDER_PAID = (
  payment: string,
) => `(EXISTS (SELECT 1 FROM deposits d WHERE d.wallet_id = ${payment}.wallet_id AND d.status <> 'orphaned')
   OR EXISTS (SELECT 1 FROM payments c WHERE c.wallet_id = ${payment}.wallet_id AND c.provider_status IN ('charged', 'paid')))`;
const NEWER_ATTEMPT = (payment: string) =>
  `EXISTS (SELECT 1 FROM payments n WHERE n.wallet_id = ${payment}.wallet_id AND (n.created_at, n.id) > (${payment}.created_at, ${payment}.id))`;

/**
 * The recovery e-mail of each order (migration 036, packages/domain recovery-email.ts): the
 * scanner schedules it, the job claims it before the SMTP call and records what came of it.
 */
export class RecoveryEmailRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Schedules an e-mail for every order whose newest attempt was declined or abandoned within the
   * scan window, has no USDC and no e-mail yet; an order's record still scheduled (or skipped because
   * the customer tried again) moves to its newer eligible attempt. Safe to run from every replica at
   * once: one row per wallet, and a row that already names the attempt is left alone.
   */
  async scheduleDue(now: Date, timing: RecoveryTiming): Promise<ScheduledRecoveryEmail[]> {
    const window = recoveryScanWindow(now, timing);
    const { rows } = await this.pool.query<ScheduledRecoveryRow>(
      `WITH candidates AS (
         SELECT p.id AS payment_id, p.wallet_id,
                CASE WHEN p.provider_status IS NULL THEN 'abandoned' ELSE 'declined' END AS trigger,
                CASE WHEN p.provider_status IS NULL THEN p.created_at + make_interval(secs => $4::double precision / 1000)
                     ELSE COALESCE(p.provider_updated_at, p.created_at) END
                  + make_interval(secs => $5::double precision / 1000) AS due_at
         FROM payments p
         WHERE ${CANDIDATE_EVENT}
           AND p.email <> ''
           AND NOT ${NEWER_ATTEMPT('p')}
           AND NOT ${ORDER_PAID('p')}
           AND NOT EXISTS (SELECT 1 FROM recovery_emails r WHERE r.wallet_id = p.wallet_id AND r.payment_id = p.id)
       )
       INSERT INTO recovery_emails AS r (id, wallet_id, payment_id, trigger, due_at)
       SELECT gen_random_uuid(), wallet_id, payment_id, trigger, due_at FROM candidates
       ON CONFLICT (wallet_id) DO UPDATE
         SET payment_id = EXCLUDED.payment_id, trigger = EXCLUDED.trigger, due_at = EXCLUDED.due_at,
             state = 'scheduled', skip_reason = NULL
         WHERE r.state = 'scheduled' OR (r.state = 'skipped' AND r.skip_reason = 'tried_again')
       RETURNING r.id, r.due_at`,
      [window.declinedSince, window.abandonedCreatedBefore, window.abandonedCreatedSince, timing.abandonedAfterMs, timing.delayMs],
    );
    return rows.map((row) => ({ id: row.id, dueAt: row.due_at }));
  }

  /** Scheduled records in id order, the page after `after`: the reconciler gives each that has no job one. */
  async listScheduled(pageSize: number, after?: { id: string }): Promise<{ id: string }[]> {
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT id FROM recovery_emails WHERE state = 'scheduled' AND ($1::uuid IS NULL OR id > $1) ORDER BY id LIMIT $2`,
      [after?.id ?? null, pageSize],
    );
    return rows;
  }

  /** A record with its payment and order as they stand now; undefined for none. */
  async find(id: string): Promise<RecoveryEmailRecord | undefined> {
    const { rows } = await this.pool.query<FindRow>(
      `SELECT r.id, r.payment_id, r.trigger, r.state, r.due_at, r.attempts,
              p.email, p.provider, p.amount::text AS amount, p.currency, p.provider_reason,
              p.status, p.provider_status, p.provider_updated_at, p.created_at,
              ${ORDER_PAID('p')} AS order_paid, ${NEWER_ATTEMPT('p')} AS newer_attempt
       FROM recovery_emails r JOIN payments p ON p.id = r.payment_id
       WHERE r.id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      paymentId: row.payment_id,
      trigger: row.trigger,
      attempts: row.attempts,
      email: row.email,
      provider: row.provider,
      amount: row.amount,
      currency: row.currency.trim(),
      providerReason: row.provider_reason,
      facts: {
        state: row.state,
        dueAt: row.due_at,
        payment: {
          status: row.status,
          providerStatus: row.provider_status,
          providerUpdatedAt: row.provider_updated_at,
          createdAt: row.created_at,
        },
        orderPaid: row.order_paid,
        newerAttempt: row.newer_attempt,
      },
    };
  }

  /**
   * scheduled → sending, before the SMTP call (at most once): counts the attempt and stores the
   * link's key hash. False when another worker claimed it, or it moved to another attempt meanwhile.
   * Returns the attempt's number.
   */
  async claim(id: string, paymentId: string, trigger: RecoveryTrigger, linkKeyHash: Buffer): Promise<number | undefined> {
    // The trigger as the message tells it: an abandoned checkout the provider declined since is a decline.
    const { rows } = await this.pool.query<{ attempts: number }>(
      `UPDATE recovery_emails SET state = 'sending', attempts = attempts + 1, trigger = $3, link_key_hash = $4, claimed_at = now()
       WHERE id = $1 AND payment_id = $2 AND state = 'scheduled'
       RETURNING attempts`,
      [id, paymentId, trigger, linkKeyHash],
    );
    return rows[0]?.attempts;
  }

  /** sending → sent. */
  async recordSent(id: string, messageId: string | null): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE recovery_emails SET state = 'sent', sent_at = now(), message_id = $2, last_error = NULL
       WHERE id = $1 AND state = 'sending'`,
      [id, messageId],
    );
    return rowCount === 1;
  }

  /** sending → scheduled at `dueAt`: the SMTP server certainly did not take it. */
  async recordRetry(id: string, dueAt: Date, error: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE recovery_emails SET state = 'scheduled', due_at = $2, last_error = $3 WHERE id = $1 AND state = 'sending'`,
      [id, dueAt, error],
    );
    return rowCount === 1;
  }

  /** sending → failed. */
  async recordFailed(id: string, reason: RecoveryFailureReason, error: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE recovery_emails SET state = 'failed', failure_reason = $2, last_error = $3 WHERE id = $1 AND state = 'sending'`,
      [id, reason, error],
    );
    return rowCount === 1;
  }

  /** scheduled → skipped, for `paymentId` only (not one the scanner just moved to a newer attempt). */
  async skip(id: string, paymentId: string, reason: RecoverySkipReason): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE recovery_emails SET state = 'skipped', skip_reason = $3 WHERE id = $1 AND payment_id = $2 AND state = 'scheduled'`,
      [id, paymentId, reason],
    );
    return rowCount === 1;
  }

  /**
   * Sends claimed longer ago than the lease (their process stopped mid-send): failed, outcome
   * unknown, never sent again. Returns their ids.
   */
  async failStaleSends(leaseMs: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>(
      `UPDATE recovery_emails
       SET state = 'failed', failure_reason = 'outcome_unknown', last_error = 'the send was interrupted: its outcome is unknown'
       WHERE state = 'sending' AND claimed_at < now() - make_interval(secs => $1::double precision / 1000)
       RETURNING id`,
      [leaseMs],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Sent e-mails whose order received USDC after they went (within the link's lifetime): marked
   * recovered, once each. Returns how many.
   */
  async markRecovered(): Promise<number> {
    const { rowCount } = await this.pool.query(
      `UPDATE recovery_emails r SET recovered_at = now()
       WHERE r.state = 'sent' AND r.recovered_at IS NULL AND r.sent_at > now() - make_interval(secs => $1::double precision / 1000)
         AND EXISTS (SELECT 1 FROM deposits d WHERE d.wallet_id = r.wallet_id AND d.seen_at > r.sent_at AND d.status <> 'orphaned')`,
      [RECOVERY_LINK_LIFETIME_MS],
    );
    return rowCount ?? 0;
  }
}

/**
 * The e-mailed link's key hash, as the payment readers select it beside the payment's own: only once
 * claimed, and only within the link's lifetime.
 */
export const RECOVERY_LINK_KEY_HASH = (payment: string) =>
  `(SELECT r.link_key_hash FROM recovery_emails r WHERE r.payment_id = ${payment}.id AND r.link_key_hash IS NOT NULL
      AND r.claimed_at > now() - interval '${RECOVERY_LINK_LIFETIME_MS / 1000} seconds') AS link_key_hash`;

/** The payment's own key hash and the e-mailed link's, the ones there are. */
export function paymentKeyHashes(customer: Buffer | null, link: Buffer | null): Buffer[] {
  return [customer, link].filter((hash): hash is Buffer => hash !== null);
}

interface FindRow {
  id: string;
  payment_id: string;
  trigger: RecoveryTrigger;
  state: RecoveryEmailState;
  due_at: Date;
  attempts: number;
  email: string;
  provider: string;
  amount: string;
  currency: string;
  provider_reason: string | null;
  status: string;
  provider_status: ProviderPaymentStatus | null;
  provider_updated_at: Date | null;
  created_at: Date;
  order_paid: boolean;
  newer_attempt: boolean;
}
