import type { Pool } from 'pg';
import {
  declineKindOfReport,
  deliveryTxHash,
  isDeclineKind,
  FINAL_PROVIDER_STATUSES,
  isUuid,
  judgeProviderReport,
  PROVIDER_REPORT_LIMITS,
  providerIdentifier,
  providerText,
  reportReplayKey,
  webhookPaymentLookup,
  type DeclineKind,
  type ProviderPaymentStatus,
  type ReportedDestination,
  type WebhookPaymentFound,
} from '@gateway/domain';
import { inTransaction } from '../in-transaction';

export interface ProviderStatusUpdate {
  /** The providers the webhook may be about: its own, and those running on its account. */
  providers: readonly string[];
  /** How the webhook names the payment (the domain's webhookPaymentLookup says which payment that may be). */
  match: { paymentId?: string; providerReference?: string; walletAddress?: string };
  status: ProviderPaymentStatus;
  rawStatus: string;
  providerReference?: string;
  reason?: string;
  /** The kind of the reason of a decline or failure, where the adapter read one the provider documents. */
  declineKind?: DeclineKind;
  /** The transaction the provider reported sending the USDC in: it decides which attempt paid. */
  txHash?: string;
  /** Where the provider says the order delivers: it must be the payment's wallet (judgeProviderReport). */
  destination?: ReportedDestination;
  /** The provider documents the destination in its reports: charged or paid without it is not trusted. */
  destinationDocumented?: boolean;
  /** The provider reported a refund. */
  refunded?: boolean;
  /** A webhook that signs no time: recorded once (provider_report_events), and only forward. */
  untimed?: boolean;
  /** The provider's id of the notification, where it sends one. */
  eventId?: string;
}

export type ProviderStatusOutcome = 'updated' | 'unchanged' | 'unknown_payment';

/** What recording a report did, and the decline it gave the payment, if it gave one it did not have. */
export interface ProviderReportRecorded {
  outcome: ProviderStatusOutcome;
  /** The payment now has this decline kind and had another or none: counted once per payment and kind. */
  declined?: DeclineKind;
}

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
 * What providers say about payments: the one writer of their status (webhooks and look-ups alike),
 * and the schedule of the look-ups, kept on the payment (Redis only holds the job that acts on it).
 */
export class ProviderStatusRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Records what a provider says (a webhook, or a look-up's answer), when the payment exists,
   * belongs to one of `providers`, and the domain's judgeProviderReport lets it: the report is about
   * the payment's own order (its pinned order id; the wallet, network and asset it delivers to),
   * and the forward-only rule lets the status move (never from paid, never a charged card reopened
   * but by its refund; a report without a signed time only forward, and only once). The order of
   * the first report recorded is pinned, and followed from then on. Whatever the provider's strings hold (NUL bytes,
   * control characters, megabytes, another type), they are made fit to store first
   * (provider-report in @gateway/domain): this is where provider data enters the database.
   */
  async recordProviderStatus(update: ProviderStatusUpdate): Promise<ProviderStatusOutcome> {
    return (await this.recordProviderReport(update)).outcome;
  }

  /**
   * recordProviderStatus, saying also whether the report gave the payment a decline kind it did not
   * have (a provider repeats a failure in several webhooks, and payment-redirect counts each decline once).
   */
  async recordProviderReport(update: ProviderStatusUpdate): Promise<ProviderReportRecorded> {
    const lookup = webhookPaymentLookup({
      paymentId: providerIdentifier(update.match.paymentId),
      providerReference: providerIdentifier(update.match.providerReference),
      walletAddress: providerIdentifier(update.match.walletAddress),
    });
    if (lookup.by === 'nothing') return { outcome: 'unknown_payment' };
    const byId = lookup.by === 'payment_id' ? lookup.paymentId : null;
    const reference = lookup.by === 'payment_id' ? null : lookup.providerReference;
    const wallet = lookup.by === 'payment_id' ? null : lookup.walletAddress;
    // A report found by the provider's order id is about that order, whether or not it repeats it.
    const providerReference = providerIdentifier(update.providerReference) ?? reference;
    const rawStatus = providerText(update.rawStatus, PROVIDER_REPORT_LIMITS.rawStatus) ?? null;
    const reason = providerText(update.reason, PROVIDER_REPORT_LIMITS.reason) ?? null;
    // Stored exactly for a decline or failure (`other` where no documented reason came), whatever the caller passed.
    const declineKind =
      declineKindOfReport(
        update.status,
        typeof update.declineKind === 'string' && isDeclineKind(update.declineKind) ? update.declineKind : undefined,
      ) ?? null;
    const txHash = deliveryTxHash(update.txHash) ?? null;
    const destination = reportedDestination(update.destination);
    return inTransaction(this.pool, async (client) => {
      // One statement, the ways webhookPaymentLookup allows in order of trust (each an index look-up); the row locked for the move.
      const { rows } = await client.query<{
        id: string;
        polygon_address: string;
        provider_status: ProviderPaymentStatus | null;
        provider_reference: string | null;
        provider_decline_kind: DeclineKind | null;
        found_by: WebhookPaymentFound['by'];
      }>(
        `SELECT p.id, w.polygon_address, p.provider_status, p.provider_reference, p.provider_decline_kind, found.found_by
         FROM payments p JOIN wallets w ON w.id = p.wallet_id
         JOIN (
           SELECT id, (ARRAY['payment_id', 'provider_reference', 'wallet'])[rank] AS found_by FROM (
             SELECT id, 1 AS rank, created_at FROM payments WHERE id = $2::uuid AND provider = ANY($1::text[])
             UNION ALL
             SELECT id, 2, created_at FROM payments WHERE provider = ANY($1::text[]) AND provider_reference = $3
             UNION ALL
             SELECT p.id, 3, p.created_at FROM payments p JOIN wallets w ON w.id = p.wallet_id
             WHERE w.polygon_address = $4 AND p.provider = ANY($1::text[]) AND p.provider_reference IS NULL
           ) AS candidates
           ORDER BY rank, created_at DESC
           LIMIT 1) AS found ON found.id = p.id
         FOR UPDATE OF p`,
        [update.providers, byId, reference, wallet],
      );
      const current = rows[0];
      if (!current) return { outcome: 'unknown_payment' };
      const untimed = update.untimed === true;
      const verdict = judgeProviderReport(
        {
          walletAddress: current.polygon_address,
          providerStatus: current.provider_status,
          providerReference: current.provider_reference,
          foundBy: current.found_by,
        },
        {
          status: update.status,
          providerReference,
          destination,
          destinationDocumented: update.destinationDocumented === true,
          refunded: update.refunded === true,
          untimed,
        },
      );
      if (verdict.kind === 'not_this_payment') return { outcome: 'unknown_payment' };
      const replayKey = untimed
        ? reportReplayKey({ eventId: providerIdentifier(update.eventId), providerReference, rawStatus: rawStatus ?? '' })
        : undefined;
      if (replayKey !== undefined) {
        const seen = await client.query(
          'INSERT INTO provider_report_events (payment_id, event_key) VALUES ($1, $2) ON CONFLICT DO NOTHING',
          [current.id, replayKey],
        );
        if (seen.rowCount === 0) return { outcome: 'unchanged' };
      }
      if (verdict.kind === 'unchanged') return { outcome: 'unchanged' };
      await client.query(
        `UPDATE payments SET provider_status = $2, provider_raw_status = $3, provider_reference = $4,
                provider_reason = $5, provider_decline_kind = $7, provider_tx_hash = COALESCE($6, provider_tx_hash),
                provider_updated_at = now()
         WHERE id = $1`,
        [current.id, update.status, rawStatus, verdict.pin, reason, txHash, declineKind],
      );
      return declineKind !== null && declineKind !== current.provider_decline_kind
        ? { outcome: 'updated', declined: declineKind }
        : { outcome: 'updated' };
    });
  }

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

/** The destination a provider reported, each part made fit to compare (a part that is not plain text is not reported). */
function reportedDestination(reported: ReportedDestination | undefined): ReportedDestination | undefined {
  if (!reported) return undefined;
  const parts = {
    address: providerIdentifier(reported.address),
    network: providerIdentifier(reported.network),
    asset: providerIdentifier(reported.asset),
  };
  return Object.values(parts).some((part) => part !== undefined) ? parts : undefined;
}
