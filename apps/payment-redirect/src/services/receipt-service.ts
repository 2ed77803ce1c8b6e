import {
  attemptThatPaid,
  coinOfToken,
  isUuid,
  matchingPaymentKey,
  receiptProgress,
  secondChanceFormToken,
  secondChanceLeft,
  type AvailableProviderOption,
  type UsdcCoin,
  type ProviderCatalogue,
  type ProviderPaymentStatus,
  type ReceiptProgress,
} from '@gateway/domain';
import type { PaymentReceiptRepository, ReceiptDepositRecord } from '@gateway/db/payment-redirect';
import type { SecondChancePayment } from './checkout/second-chance-service';

/** A USDC transfer credited to the payment (an orphaned one is not). */
export interface ReceiptTransaction {
  amount: bigint;
  coin: UsdcCoin;
  txHash: string;
  /** On the configured block explorer; absent when none is configured (a local chain). */
  href?: string;
  merchantNotified: boolean;
}

/** Another payment of the same order. */
export interface OtherAttempt {
  id: string;
  providerName: string;
}

/** What happened to a payment, in facts: the receipt's view model says it in words. */
export type Receipt =
  | { kind: 'not_found' }
  | {
      kind: 'receipt';
      payment: {
        id: string;
        amount: string;
        currency: string;
        providerName: string;
        providerStatus: ProviderPaymentStatus | null;
        /** The provider's own words for giving up, when it gave some. */
        providerReason: string | null;
      };
      /** Where the payment stands, from its provider's status and the deposits credited to it. */
      progress: ReceiptProgress;
      transactions: ReceiptTransaction[];
      /** Another attempt of the order was credited with the USDC, and none is this one's. */
      paidThrough: OtherAttempt | null;
      /** The order's latest attempt other than this one. */
      laterAttempt: OtherAttempt | null;
      /**
       * The providers of the second chance, and the token its forms carry (derived from the
       * payment's key: null when the browser does not present it); null when it is not open.
       */
      secondChance: { choices: AvailableProviderOption[]; formToken: string | null } | null;
    };

export interface ReceiptServiceOptions {
  /** USDC_TOKEN_ADDRESS: deposits in any other token are the other USDC (USDC.e). */
  settledToken: string;
  /** Block explorer link for a transaction, `{tx}` standing for its hash; null for none. */
  explorerTxUrl: string | null;
  /** Names the payment's provider (also one no longer offered). */
  providers: Pick<ProviderCatalogue, 'describe'>;
  /** SECOND_CHANCES_MAX: a payment that gave as many offers none. */
  secondChancesMax: number;
  /** The providers a payment may be paid with instead (SecondChanceService.offers). */
  secondChanceOffers(payment: SecondChancePayment): Promise<AvailableProviderOption[]>;
}

/** The customer's live receipt (every provider's return URL): what happened to their payment. */
export class ReceiptService {
  constructor(
    private readonly receipts: Pick<PaymentReceiptRepository, 'findReceipt'>,
    private readonly options: ReceiptServiceOptions,
  ) {}

  /** The receipt of `paymentId`; the second chance's token only for a browser presenting its key among `keys`. */
  async find(paymentId: string, keys: readonly string[] = []): Promise<Receipt> {
    if (!isUuid(paymentId)) return { kind: 'not_found' };
    const record = await this.receipts.findReceipt(paymentId.toLowerCase());
    if (!record) return { kind: 'not_found' };
    // A deposit is this payment's when it is credited to it, not to a later attempt of the same order.
    const creditedTo = (deposit: ReceiptDepositRecord) => attemptThatPaid(deposit, record.attempts);
    const own = record.deposits.filter((deposit) => creditedTo(deposit) === record.id);
    const progress = receiptProgress(record.providerStatus, own);
    const paidBy = record.deposits.find((deposit) => deposit.status !== 'orphaned' && creditedTo(deposit) !== record.id);
    const paidAttempt =
      paidBy && progress.deposits === 0 ? record.attempts.find((attempt) => attempt.id === creditedTo(paidBy)) : undefined;
    const later = record.attempts.filter((attempt) => attempt.id !== record.id).at(-1);
    const choices =
      paidAttempt || !progress.declined || !secondChanceLeft(record.secondChances, this.options.secondChancesMax)
        ? []
        : await this.options.secondChanceOffers({
            ...record,
            usdcArrived: record.deposits.some((deposit) => deposit.status !== 'orphaned'),
          });
    const key = matchingPaymentKey(keys, record.keyHash);
    return {
      kind: 'receipt',
      payment: {
        id: record.id,
        amount: record.amount,
        currency: record.currency,
        providerName: this.nameOf(record.provider),
        providerStatus: record.providerStatus,
        providerReason: record.providerReason,
      },
      progress,
      transactions: own
        .filter((deposit) => deposit.status !== 'orphaned')
        .map((deposit) => ({
          amount: deposit.amount,
          coin: coinOfToken(deposit.token, this.options.settledToken),
          txHash: deposit.txHash,
          ...(this.options.explorerTxUrl ? { href: this.options.explorerTxUrl.replace('{tx}', deposit.txHash) } : {}),
          merchantNotified: deposit.merchantNotified,
        })),
      paidThrough: paidAttempt ? this.other(paidAttempt) : null,
      laterAttempt: later ? this.other(later) : null,
      secondChance: choices.length > 0 ? { choices, formToken: key ? secondChanceFormToken(key, record.id) : null } : null,
    };
  }

  private other(attempt: { id: string; provider: string }): OtherAttempt {
    return { id: attempt.id, providerName: this.nameOf(attempt.provider) };
  }

  private nameOf(provider: string): string {
    return this.options.providers.describe(provider)?.displayName ?? provider;
  }
}
