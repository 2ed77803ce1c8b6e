/**
 * Job payloads carry record ids only: PostgreSQL holds the truth, a job is a reminder to act
 * on a record. The job id equals the record id, so adding the same job twice is a no-op.
 */
export interface SettlementJob {
  /** deposits.id, as a decimal string (bigint). */
  depositId: string;
}

export interface CallbackJob {
  /** callback_deliveries.id (uuid). */
  deliveryId: string;
}

export interface ProviderStatusJob {
  /** payments.id (uuid). */
  paymentId: string;
}

export interface RecoveryEmailJob {
  /** recovery_emails.id (uuid). */
  recoveryEmailId: string;
}

export const settlementJobId = (depositId: string): string => `deposit-${depositId}`;
// BullMQ refuses integer job ids, so a deposit's bigint id gets a prefix; a delivery's uuid is a
// valid job id as it is, so the job id is the delivery id itself.
export const callbackJobId = (deliveryId: string): string => deliveryId;
// A payment's uuid is a valid job id as it is.
export const providerStatusJobId = (paymentId: string): string => paymentId;
// A record's uuid is a valid job id as it is.
export const recoveryEmailJobId = (recoveryEmailId: string): string => recoveryEmailId;
