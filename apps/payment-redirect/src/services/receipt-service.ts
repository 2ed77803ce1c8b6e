import {
  attemptThatPaid,
  coinOfToken,
  isUuid,
  matchingPaymentKey,
  orderBalance,
  orderStanding,
  parseFiatAmount,
  receiptProgress,
  secondChanceFormToken,
  secondChanceLeft,
  type AvailableProviderOption,
  type DeclineKind,
  type OrderBalance,
  type OrderState,
  type UsdcCoin,
  type ProviderCatalogue,
  type ProviderPaymentStatus,
  type ReceiptProgress,
} from '@gateway/domain';
import type { PaymentReceiptRepository, ReceiptDepositRecord, ReceiptOrderRecord } from '@gateway/db/payment-redirect';
import type { RestService } from './checkout/rest-service';
import type { NextTries, SecondChancePayment } from './checkout/second-chance-service';
import type { RequestHeaders } from './checkout-rows';

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

/**
 * Paying the rest of an underpaid order: the providers that take it (each a form carrying the
 * payment key's token, null when the browser does not present the key); none whose minimum allows
 * it; or the payment has had its SECOND_CHANCES_MAX (a rest counts as one).
 */
export type RestOffer =
  | { kind: 'offered'; choices: AvailableProviderOption[]; formToken: string | null }
  | { kind: 'no_provider' }
  | { kind: 'exhausted' };

/** The order the payment is an attempt of, judged (order-state.ts), once anything counted arrived. */
export interface ReceiptOrder {
  state: Exclude<OrderState, 'awaiting'>;
  /** The order as the customer was asked for it (a rest payment's: the order it completes). */
  amount: string;
  currency: string;
  /** What arrived and what is missing or over, in the order's currency. */
  balance: OrderBalance;
  totalUsdc: bigint;
  expectedUsdc: bigint;
  /** When the order's window closed (a deposit after it is late). */
  windowEndsAt: Date;
  /** A deposit of the order was forwarded to the shop: its callback, with the order's state, is written. */
  shopTold: boolean;
  /** For an underpaid order only. */
  rest: RestOffer | null;
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
        /** The kind of that reason (card_refused, identity_failed, …; other when undocumented); null unless declined or failed. */
        providerDeclineKind: DeclineKind | null;
        /** It pays the rest of an underpaid order (its amount is the rest's, not the order's). */
        rest: boolean;
      };
      /** Where the payment stands, from its provider's status and the deposits credited to it. */
      progress: ReceiptProgress;
      transactions: ReceiptTransaction[];
      /** Another attempt of the order was credited with the USDC, and none is this one's. */
      paidThrough: OtherAttempt | null;
      /** The order's latest attempt other than this one. */
      laterAttempt: OtherAttempt | null;
      /**
       * The providers of the second chance, ordered by the kind of the decline, and the token its
       * forms carry (derived from the payment's key: null when the browser does not present it);
       * null when it is not open.
       */
      secondChance: { tries: NextTries; formToken: string | null } | null;
      /** The order's judgement; null before anything counted arrived, or when no attempt recorded an expectation. */
      order: ReceiptOrder | null;
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
  /** The providers a payment may be paid with instead, ordered by its decline (SecondChanceService.nextTries). */
  secondChanceTries(payment: SecondChancePayment, headers: RequestHeaders): Promise<NextTries | null>;
  /** What an underpaid order is missing and who takes it. */
  rest: Pick<RestService, 'missing' | 'offers'>;
}

/** The customer's live receipt (every provider's return URL): what happened to their payment. */
export class ReceiptService {
  constructor(
    private readonly receipts: Pick<PaymentReceiptRepository, 'findReceipt' | 'findOrder'>,
    private readonly options: ReceiptServiceOptions,
  ) {}

  /**
   * The receipt of `paymentId`; the second chance's token only for a browser presenting its key
   * among `keys`; `headers`: the request's, for the customer's country a trusted proxy may set.
   */
  async find(paymentId: string, keys: readonly string[] = [], headers: RequestHeaders = {}): Promise<Receipt> {
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
    const key = matchingPaymentKey(keys, record.keyHash);
    const formToken = key ? secondChanceFormToken(key, record.id) : null;
    const left = secondChanceLeft(record.secondChances, this.options.secondChancesMax);
    const shopTold = record.deposits.some((deposit) => deposit.forwardedTxHash !== null);
    const order = this.orderOf(await this.receipts.findOrder(record.walletId), { chancesLeft: left, formToken, shopTold });
    // A rest payment is part of its order: another provider for its amount alone would be judged as a new order.
    // And an underpaid order is offered its rest, not the whole amount again.
    const tries =
      paidAttempt || !progress.declined || !left || record.completes !== null || order?.state === 'underpaid'
        ? null
        : await this.options.secondChanceTries(
            { ...record, usdcArrived: record.deposits.some((deposit) => deposit.status !== 'orphaned') },
            headers,
          );
    return {
      kind: 'receipt',
      payment: {
        id: record.id,
        amount: record.amount,
        currency: record.currency,
        providerName: this.nameOf(record.provider),
        providerStatus: record.providerStatus,
        providerReason: record.providerReason,
        providerDeclineKind: record.providerDeclineKind,
        rest: record.completes !== null,
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
      secondChance: tries ? { tries, formToken } : null,
      order,
    };
  }

  /** The order judged, with the rest offered when it is underpaid; null while it awaits its first counted USDC. */
  private orderOf(
    record: ReceiptOrderRecord | undefined,
    { chancesLeft, formToken, shopTold }: { chancesLeft: boolean; formToken: string | null; shopTold: boolean },
  ): ReceiptOrder | null {
    const judged = record && orderStanding(record).judged;
    if (!record?.order || !record.expectation || !judged || judged.state === 'awaiting') return null;
    let rest: RestOffer | null = null;
    if (judged.state === 'underpaid') {
      const missing = this.options.rest.missing(record);
      const choices = missing ? this.options.rest.offers(missing) : [];
      rest = !chancesLeft ? { kind: 'exhausted' } : choices.length > 0 ? { kind: 'offered', choices, formToken } : { kind: 'no_provider' };
    }
    return {
      state: judged.state,
      amount: record.order.amount,
      currency: record.order.currency,
      balance: orderBalance(parseFiatAmount(record.order.amount).minorUnits, judged),
      totalUsdc: judged.totalUsdc,
      expectedUsdc: judged.expectedUsdc,
      windowEndsAt: record.expectation.windowEndsAt,
      shopTold,
      rest,
    };
  }

  private other(attempt: { id: string; provider: string }): OtherAttempt {
    return { id: attempt.id, providerName: this.nameOf(attempt.provider) };
  }

  private nameOf(provider: string): string {
    return this.options.providers.describe(provider)?.displayName ?? provider;
  }
}
