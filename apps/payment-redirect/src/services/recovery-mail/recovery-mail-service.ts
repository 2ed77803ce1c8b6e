import type { FastifyBaseLogger } from 'fastify';
import {
  issuePaymentKey,
  maskEmail,
  RECOVERY_SEND_LEASE_MS,
  recoveryAttemptOutcome,
  recoveryDecision,
  recoveryLinkPath,
  recoveryReason,
  type ProviderCatalogue,
  type RecoveryTiming,
} from '@gateway/domain';
import type { RecoveryEmailRepository } from '@gateway/db/payment-redirect';
import { enqueueMissingJobs, enqueueRecoveryEmails, haveRecoveryEmailJobs, type JobResult, type RecoveryEmailQueue } from '@gateway/queue';
import type { RecoveryEmailMetrics } from '../../metrics';
import { recoveryMessageView } from './recovery-message';
import type { Mailer } from './smtp-mailer';

export interface RecoveryMailServiceDeps {
  records: Pick<
    RecoveryEmailRepository,
    | 'scheduleDue'
    | 'listScheduled'
    | 'find'
    | 'claim'
    | 'recordSent'
    | 'recordRetry'
    | 'recordFailed'
    | 'skip'
    | 'failStaleSends'
    | 'markRecovered'
  >;
  queue: RecoveryEmailQueue;
  mailer: Mailer;
  providers: Pick<ProviderCatalogue, 'describe'>;
  /** {payment_url}: the e-mailed link's host. */
  publicUrl: string;
  timing: RecoveryTiming;
  metrics: RecoveryEmailMetrics;
  log: FastifyBaseLogger;
  now?: () => Date;
  /** How long a claimed send may run before it counts as interrupted. */
  sendLeaseMs?: number;
}

/** What one scan did. */
export interface RecoveryScan {
  scheduled: number;
  interrupted: number;
  reenqueued: number;
  recovered: number;
}

/**
 * The recovery e-mails (issue 32): a scan finds declined and abandoned orders and schedules their
 * one e-mail (and is the queue's reconciler), and the job sends it when it is due, if the rules
 * still say so. Every state lives in recovery_emails; the job only says when to look.
 */
export class RecoveryMailService {
  private readonly now: () => Date;

  constructor(private readonly deps: RecoveryMailServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * One pass: sends interrupted mid-way are closed (failed, never resent); new declines and
   * abandoned checkouts scheduled, each with a job at its due time; scheduled records that lost
   * their job given one; orders paid since their e-mail counted.
   */
  async scanOnce(stopped: () => boolean = () => false): Promise<RecoveryScan> {
    const { records, queue, metrics, log } = this.deps;
    const interrupted = await records.failStaleSends(this.deps.sendLeaseMs ?? RECOVERY_SEND_LEASE_MS);
    for (const id of interrupted) {
      metrics.failed('outcome_unknown');
      log.warn({ recoveryEmailId: id }, 'recovery e-mail interrupted mid-send: marked failed, never sent again');
    }
    const now = this.now();
    const scheduled = await records.scheduleDue(now, this.deps.timing);
    await enqueueRecoveryEmails(queue, scheduled, now);
    if (scheduled.length > 0) {
      metrics.scheduled(scheduled.length);
      log.info({ scheduled: scheduled.length }, 'recovery e-mails scheduled');
    }
    const pageSize = 500;
    const reenqueued = await enqueueMissingJobs<{ id: string }>({
      pageSize,
      readPage: (after) => records.listScheduled(pageSize, after),
      haveJobs: (ids) => haveRecoveryEmailJobs(queue, ids),
      // The job reads its record's due time and waits for it.
      enqueue: (ids) =>
        enqueueRecoveryEmails(
          queue,
          ids.map((id) => ({ id })),
        ),
      stopped,
    });
    if (reenqueued > 0) {
      metrics.reconcilerEnqueued(reenqueued);
      log.info({ reenqueued }, 'recovery e-mails that had no job got one');
    }
    const recovered = await records.markRecovered();
    if (recovered > 0) metrics.recovered(recovered);
    return { scheduled: scheduled.length, interrupted: interrupted.length, reenqueued, recovered };
  }

  /** The job of one record: send it now if the rules say so, or say when to look again. */
  async sendOne(recoveryEmailId: string): Promise<JobResult> {
    const { records, metrics, log } = this.deps;
    const record = await records.find(recoveryEmailId);
    if (!record) return 'done';
    const decision = recoveryDecision(record.facts, this.now(), this.deps.timing);
    switch (decision.kind) {
      case 'none':
        return 'done';
      case 'wait':
        return { againAt: decision.until };
      case 'skip':
        if (await records.skip(record.id, record.paymentId, decision.reason)) {
          metrics.skipped(decision.reason);
          log.info({ recoveryEmailId: record.id, paymentId: record.paymentId, reason: decision.reason }, 'recovery e-mail skipped');
        }
        return 'done';
      case 'send':
        break;
    }
    const key = issuePaymentKey();
    const attempt = await records.claim(record.id, record.paymentId, decision.trigger, key.hash);
    // Claimed by another worker, or moved to a newer attempt of the order (whose job the reconciler gives).
    if (attempt === undefined) return 'done';
    const view = recoveryMessageView({
      trigger: decision.trigger,
      providerName: this.deps.providers.describe(record.provider)?.displayName ?? record.provider,
      amount: record.amount,
      currency: record.currency,
      reason: recoveryReason(decision.trigger, record.providerReason),
      link: `${this.deps.publicUrl}${recoveryLinkPath(record.paymentId, key.key)}`,
    });
    const context = { recoveryEmailId: record.id, paymentId: record.paymentId, to: maskEmail(record.email), attempt };
    const result = await this.deps.mailer.send({ to: record.email, ...view });
    if (result.kind === 'sent') {
      await records.recordSent(record.id, result.messageId);
      metrics.sent(decision.trigger);
      log.info({ ...context, trigger: decision.trigger, messageId: result.messageId }, 'recovery e-mail sent');
      return 'done';
    }
    const outcome = recoveryAttemptOutcome(result.failure, attempt, this.now());
    if (outcome.kind === 'retry') {
      await records.recordRetry(record.id, outcome.at, result.error);
      metrics.retried();
      log.warn({ ...context, error: result.error, retryAt: outcome.at }, 'recovery e-mail not sent; trying again later');
      return { againAt: outcome.at };
    }
    await records.recordFailed(record.id, outcome.reason, result.error);
    metrics.failed(outcome.reason);
    log.warn({ ...context, error: result.error, reason: outcome.reason }, 'recovery e-mail failed');
    return 'done';
  }
}
