import type { Pool } from 'pg';
import { FINAL_PROVIDER_STATUSES, providerIdentifier, type ProviderPaymentStatus, isUuid } from '@gateway/domain';

/** What a status look-up needs of a payment, and where its schedule stands (migration 021). */
export interface StatusPollRecord {
  id: string;
  provider: string;
  /** The payment's temporary wallet: the provider's order for it delivers there. */
  walletAddress: string;
  providerReference: string | null;
  providerStatus: ProviderPaymentStatus | null;
  createdAt: Date;
  /** Look-ups made so far. */
  polls: number;
  /** When the next look-up is due; null once polling stopped. */
  dueAt: Date | null;
}

/** A payment whose look-up is overdue, as the reconciler pages through them. */
export interface OverdueStatusPoll {
  id: string;
  /** As PostgreSQL writes it (microseconds kept, so paging never sees a row twice). */
  dueAt: string;
}

interface PollRow {
  id: string;
  provider: string;
  polygon_address: string;
  provider_reference: string | null;
  provider_status: ProviderPaymentStatus | null;
  created_at: Date;
  status_polls: number;
  status_poll_due_at: Date | null;
}

/**
 * The schedule of provider status look-ups, kept on the payment (Redis only holds the job that
 * acts on it). The status itself is written by PaymentReceiptRepository.recordProviderStatus,
 * the one writer webhooks use too.
 */
export class ProviderStatusPollRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Schedules a look-up of each payment at `dueAt`, or keeps an earlier one already scheduled.
   * Returns the ids of the payments scheduled (a payment whose provider status is final is left alone).
   */
  async schedule(paymentIds: readonly string[], dueAt: Date): Promise<string[]> {
    if (paymentIds.length === 0) return [];
    const { rows } = await this.pool.query<{ id: string }>({
      name: 'status-poll-schedule',
      text: `UPDATE payments SET status_poll_due_at = LEAST(COALESCE(status_poll_due_at, $2), $2)
             WHERE id = ANY($1::uuid[]) AND (provider_status IS NULL OR provider_status <> ALL($3::text[]))
             RETURNING id`,
      values: [paymentIds, dueAt, FINAL_PROVIDER_STATUSES],
    });
    return rows.map((row) => row.id);
  }

  /**
   * The payment a hint (an unsigned webhook) names, among `providers`, by our id or the provider's
   * reference, with its look-up moved to now. Undefined when no such payment is open.
   */
  async scheduleNowFor(
    providers: readonly string[],
    match: { paymentId?: string | undefined; providerReference?: string | undefined },
  ): Promise<string | undefined> {
    const paymentId = providerIdentifier(match.paymentId) ?? null;
    const reference = providerIdentifier(match.providerReference) ?? null;
    if (paymentId === null && reference === null) return undefined;
    const uuid = paymentId !== null && isUuid(paymentId) ? paymentId : null;
    const { rows } = await this.pool.query<{ id: string }>({
      name: 'status-poll-schedule-now',
      text: `UPDATE payments SET status_poll_due_at = now()
             WHERE id = (SELECT id FROM payments
                         WHERE provider = ANY($1::text[]) AND (id = $2::uuid OR provider_reference = $3)
                         ORDER BY (id = $2::uuid) DESC NULLS LAST, created_at DESC LIMIT 1)
               AND (provider_status IS NULL OR provider_status <> ALL($4::text[]))
             RETURNING id`,
      values: [providers, uuid, reference, FINAL_PROVIDER_STATUSES],
    });
    return rows[0]?.id;
  }

  async find(paymentId: string): Promise<StatusPollRecord | undefined> {
    const { rows } = await this.pool.query<PollRow>({
      name: 'status-poll-find',
      text: `SELECT p.id, p.provider, w.polygon_address, p.provider_reference, p.provider_status, p.created_at, p.status_polls,
                    p.status_poll_due_at
             FROM payments p JOIN wallets w ON w.id = p.wallet_id WHERE p.id = $1`,
      values: [paymentId],
    });
    const row = rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      provider: row.provider,
      walletAddress: row.polygon_address,
      providerReference: row.provider_reference,
      providerStatus: row.provider_status,
      createdAt: row.created_at,
      polls: row.status_polls,
      dueAt: row.status_poll_due_at,
    };
  }

  /** Counts a look-up made and sets the next one (null: polling stops). */
  async recordPoll(paymentId: string, nextDueAt: Date | null): Promise<void> {
    await this.pool.query({
      name: 'status-poll-record',
      text: 'UPDATE payments SET status_polls = status_polls + 1, status_poll_due_at = $2 WHERE id = $1',
      values: [paymentId, nextDueAt],
    });
  }

  /** No more look-ups of this payment (its status became final another way, or its provider cannot be asked). */
  async stop(paymentId: string): Promise<void> {
    await this.pool.query({
      name: 'status-poll-stop',
      text: 'UPDATE payments SET status_poll_due_at = NULL WHERE id = $1',
      values: [paymentId],
    });
  }

  /**
   * Payments whose look-up has been due for at least `graceMs` (one due just now normally has its
   * job), oldest first, `limit` at a time after `after`.
   */
  async listOverdue(graceMs: number, limit: number, after?: OverdueStatusPoll): Promise<OverdueStatusPoll[]> {
    const { rows } = await this.pool.query<{ id: string; due_at: string }>({
      name: 'status-poll-overdue',
      text: `SELECT id, status_poll_due_at::text AS due_at FROM payments
             WHERE status_poll_due_at IS NOT NULL AND status_poll_due_at <= now() - make_interval(secs => $1::double precision / 1000)
               AND ($3::timestamptz IS NULL OR (status_poll_due_at, id) > ($3, $4::uuid))
             ORDER BY status_poll_due_at, id
             LIMIT $2`,
      values: [graceMs, limit, after?.dueAt ?? null, after?.id ?? null],
    });
    return rows.map((row) => ({ id: row.id, dueAt: row.due_at }));
  }
}
