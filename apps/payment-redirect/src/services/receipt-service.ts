import {
  formatUsdc,
  type ProviderCatalogue,
  type ProviderPaymentStatus,
  receiptProgress,
  RECEIPT_STEPS,
  type ReceiptProgress,
  type ReceiptStep,
} from '@gateway/domain';
import type { PaymentReceiptRepository } from '@gateway/db';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ReceiptStepView {
  label: string;
  detail?: string;
  state: 'done' | 'current' | 'todo';
}

export interface ReceiptTransactionView {
  amount: string;
  hash: string;
  /** On the configured block explorer; absent when none is configured (a local chain). */
  href?: string;
}

/** Everything the receipt page shows: the order and its progress, nothing personal. */
export interface ReceiptView {
  paymentId: string;
  amount: string;
  currency: string;
  providerName: string;
  step: ReceiptStep;
  headline: string;
  steps: ReceiptStepView[];
  /** USDC that arrived in the temporary wallet: the merchant is paid this less the fee (and any affiliate's share), never this. */
  receivedUsdc: string | null;
  transactions: ReceiptTransactionView[];
  declined: { reason: string } | null;
  waitingOn: ReceiptProgress['waitingOn'];
  merchantNotified: boolean;
  final: boolean;
}

const HEADLINES: Record<ReceiptStep, string> = {
  waiting_for_provider: 'Waiting for the payment provider',
  usdc_received: 'Payment received',
  confirmed: 'Payment confirmed',
  sent_to_merchant: 'Payment complete',
};

const STEP_LABELS: Record<ReceiptStep, string> = {
  waiting_for_provider: 'Waiting for the provider',
  usdc_received: 'USDC received',
  confirmed: 'Confirmed on the blockchain',
  sent_to_merchant: 'Sent to the merchant',
};

/** What the provider said before any USDC arrived, where it says more than "finish paying" (declined has its own words). */
const WAITING_DETAIL: Partial<Record<ProviderPaymentStatus, string>> = {
  charged: '{provider} charged the card; the USDC is on its way',
  paid: '{provider} says it sent the USDC; it has not arrived yet',
};

export interface ReceiptServiceOptions {
  /** Block explorer link for a transaction, `{tx}` standing for its hash; null for none. */
  explorerTxUrl: string | null;
  /** Names the payment's provider (also one no longer offered). */
  providers: Pick<ProviderCatalogue, 'describe'>;
}

/** The customer's live receipt (every provider's return URL): what happened to their payment. */
export class ReceiptService {
  constructor(
    private readonly receipts: PaymentReceiptRepository,
    private readonly options: ReceiptServiceOptions,
  ) {}

  async view(paymentId: string): Promise<ReceiptView | undefined> {
    if (!UUID.test(paymentId)) return undefined;
    const record = await this.receipts.findReceipt(paymentId.toLowerCase());
    if (!record) return undefined;
    const progress = receiptProgress(record.providerStatus, record.deposits);
    const counted = record.deposits.filter((deposit) => deposit.status !== 'orphaned');
    const stepIndex = RECEIPT_STEPS.indexOf(progress.step);
    const providerName = this.options.providers.describe(record.provider)?.displayName ?? record.provider;
    const received = progress.deposits > 0 ? formatUsdc(progress.receivedUsdc) : null;
    const details: Partial<Record<ReceiptStep, string>> = {
      waiting_for_provider: progress.declined
        ? 'The card was not charged'
        : stepIndex > 0
          ? `${providerName} took the card payment`
          : (WAITING_DETAIL[record.providerStatus ?? 'pending'] ?? `Finish paying on ${providerName}'s page`).replace(
              '{provider}',
              providerName,
            ),
      ...(received ? { usdc_received: `${received} USDC arrived` } : {}),
    };
    return {
      paymentId: record.id,
      amount: record.amount,
      currency: record.currency,
      providerName,
      step: progress.step,
      headline: progress.declined ? 'The payment did not go through' : HEADLINES[progress.step],
      steps: RECEIPT_STEPS.map((step, index) => ({
        label: progress.declined && step === 'waiting_for_provider' ? 'Card payment declined' : STEP_LABELS[step],
        ...(details[step] ? { detail: details[step] } : {}),
        state:
          index < stepIndex || (progress.final && index === stepIndex && !progress.waitingOn)
            ? 'done'
            : index === stepIndex
              ? 'current'
              : 'todo',
      })),
      receivedUsdc: received,
      transactions: counted.map((deposit) => ({
        amount: formatUsdc(deposit.amount),
        hash: deposit.txHash,
        ...(this.options.explorerTxUrl ? { href: this.options.explorerTxUrl.replace('{tx}', deposit.txHash) } : {}),
      })),
      declined: progress.declined ? { reason: record.providerReason ?? 'The provider declined the payment.' } : null,
      waitingOn: progress.waitingOn,
      merchantNotified: counted.length > 0 && counted.every((deposit) => deposit.merchantNotified),
      final: progress.final,
    };
  }
}
