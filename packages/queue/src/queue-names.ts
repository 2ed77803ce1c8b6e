/** Every BullMQ queue of the gateway. Producers and consumers import these, never a string. */
export const QUEUE_NAMES = {
  settlement: 'settlement',
  callbacks: 'callbacks',
  providerStatus: 'provider-status',
  recoveryEmails: 'recovery-emails',
} as const;

/** The name of every job on the settlement queue (one per deposit). */
export const SETTLEMENT_JOB_NAME = 'settle-deposit';
/** The name of every job on the callbacks queue (one per callback delivery). */
export const CALLBACK_JOB_NAME = 'deliver';
/** The name of every job on the provider-status queue (one per payment whose provider is asked). */
export const PROVIDER_STATUS_JOB_NAME = 'ask-provider';
/** The name of every job on the recovery-emails queue (one per order's recovery e-mail). */
export const RECOVERY_EMAIL_JOB_NAME = 'send-recovery-email';
