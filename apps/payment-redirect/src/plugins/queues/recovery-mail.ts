import fp from 'fastify-plugin';
import { RecoveryEmailRepository } from '@gateway/db/payment-redirect';
import {
  openRecoveryEmailQueue,
  QueueConsumer,
  RECOVERY_EMAIL_JOB_NAME,
  recoveryEmailWorkerDefinition,
  RepeatingPass,
  type RecoveryEmailJob,
} from '@gateway/queue';
import type { PaymentRedirectConfig } from '../../config';
import { recoveryEmailMetrics } from '../../metrics';
import { RecoveryMailService } from '../../services/recovery-mail/recovery-mail-service';
import { SmtpMailer } from '../../services/recovery-mail/smtp-mailer';

declare module 'fastify' {
  interface FastifyInstance {
    /** Set when SMTP_URL is: the recovery e-mails' scan and sender (issue 32). */
    recoveryMail: RecoveryMailService | undefined;
    recoveryMailConsumer: QueueConsumer<RecoveryEmailJob, typeof RECOVERY_EMAIL_JOB_NAME, { concurrency: number }> | undefined;
  }
}

/**
 * The recovery e-mails, where the operator configured mail (SMTP_URL): a scan every
 * RECOVERY_EMAIL_SCAN_INTERVAL_MS schedules them (and is the queue's reconciler), and the
 * recovery-emails queue's worker sends each when due. Without SMTP_URL nothing is scheduled or sent.
 */
export const recoveryMail = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    // Exported without mail too (all zero): the alert rules and the dashboard read the same names everywhere.
    const metrics = recoveryEmailMetrics(app.metrics);
    const settings = config.recoveryMail;
    if (settings === undefined) {
      app.decorate('recoveryMail', undefined);
      app.decorate('recoveryMailConsumer', undefined);
      return;
    }
    const redis = { url: config.raw.REDIS_URL, prefix: config.raw.REDIS_PREFIX };
    const queue = openRecoveryEmailQueue(redis);
    queue.on('error', (error) => app.log.warn({ err: error }, 'recovery-emails queue connection error'));
    const mailer = new SmtpMailer({ smtpUrl: settings.smtpUrl, from: settings.from });
    const service = new RecoveryMailService({
      records: new RecoveryEmailRepository(app.pool),
      queue,
      mailer,
      providers: app.providers,
      publicUrl: config.publicUrl,
      timing: settings.timing,
      metrics,
      log: app.log,
    });
    const passes: RepeatingPass = new RepeatingPass(
      () => service.scanOnce(() => passes.isStopped),
      settings.scanIntervalMs,
      (error) => app.log.warn({ err: error }, 'recovery e-mail scan failed; retrying at the next interval'),
    );
    const consumer = new QueueConsumer(recoveryEmailWorkerDefinition, {
      redis,
      settings: { concurrency: 2 },
      handlers: { [RECOVERY_EMAIL_JOB_NAME]: (job) => service.sendOne(job.data.recoveryEmailId) },
      reconciler: { start: () => passes.start(), stop: () => passes.stop() },
      onFailed: (job, error) => {
        app.log.warn({ jobId: job?.id, err: error }, 'recovery e-mail job failed; the scan recreates it');
        passes.runSoon();
      },
      onError: (error) => app.log.error({ err: error }, 'recovery-emails worker error'),
    });
    app.decorate('recoveryMail', service);
    app.decorate('recoveryMailConsumer', consumer);
    app.addHook('onListen', async () => consumer.start());
    // Before the pool closes: a send in flight finishes and is recorded.
    app.addHook('preClose', () => consumer.close());
    app.addHook('onClose', async () => {
      mailer.close();
      await queue.close();
    });
  },
  { name: 'recovery-mail', dependencies: ['postgres', 'providers'] },
);
