import {
  attemptThatPaid,
  coinOfToken,
  type ExpectationBasis,
  type OrderClassification,
  orderStanding,
  orderToleranceBps,
  type UsdcCoin,
} from '@gateway/domain';
import type {
  MerchantCallbackLimits,
  MerchantCallbackLog,
  MerchantCallbackRepository,
  OrderAttempt,
  OrderRepository,
  PaymentStatusDeposit,
  PaymentStatusPayment,
  PaymentStatusRecord,
  PaymentStatusRepository,
} from '@gateway/db/wallet-control';

/** A deposit with what the gateway makes of it: its coin and token, and the payment credited with it. */
export interface CreditedDeposit {
  deposit: PaymentStatusDeposit;
  coin: UsdcCoin;
  /** The token of its Transfer; the settled token where the row names none. */
  token: string;
  /** attemptThatPaid among the payments listed; undefined when no listed payment is (a deposit older than all of them). */
  creditedTo: PaymentStatusPayment | undefined;
}

/** Where the wallet's order stands (order-state.ts), as the callbacks and the receipt page judge it. */
export interface WalletOrder {
  /** The USDC of the order's final deposits so far (orderStanding's total). */
  totalUsdc: bigint;
  /** Absent when no attempt on the wallet recorded what the order should bring: nothing to judge the total by. */
  judged?: {
    classification: OrderClassification;
    basis: ExpectationBasis;
    /** The tolerance the order was judged with: the attempt's, narrowed by the merchant's own (order_tolerance_bps). */
    toleranceBps: number;
    windowEndsAt: Date;
    /** The latest attempt that recorded an expectation: the one the order is judged by. */
    attempt: OrderAttempt;
  };
}

/** The payments into one wallet, as the merchant holding its ipn_token may know them (the route's view model words them). */
export interface WalletPayments {
  record: PaymentStatusRecord;
  deposits: CreditedDeposit[];
  /** Its callbacks and their attempts, the newest of each (CALLBACK_LOG_LIMITS). */
  callbacks: MerchantCallbackLog;
  order: WalletOrder;
}

/**
 * How much of its callbacks' story the merchant gets with every status answer: the newest 10
 * deliveries (a wallet is one order: one per forwarded deposit, rarely more than two), the newest 5
 * attempts of each (a callback failing for days repeats itself; attempt_count has the total), and
 * the first 200 characters of each recorded answer (enough to tell a shop's error page or "ok").
 * The operator's `gateway story` has the rest.
 */
export const CALLBACK_LOG_LIMITS: MerchantCallbackLimits = { deliveries: 10, attempts: 5, excerptChars: 200 };

/**
 * Check Payment Status: what the merchant holding an ipn_token may know about its wallet. Nothing
 * about the customer (no e-mail); the payout address and callback are the merchant's own.
 */
export class PaymentStatusService {
  constructor(
    private readonly statuses: PaymentStatusRepository,
    /** USDC_TOKEN_ADDRESS: the token deposits are settled in; any other is the other USDC. */
    private readonly settledToken: string,
    private readonly callbacks: MerchantCallbackRepository,
    private readonly orders: OrderRepository,
  ) {}

  /** undefined: no wallet has this ipn_token. */
  async statusOf(ipnToken: string): Promise<WalletPayments | undefined> {
    const record = await this.statuses.findByIpnToken(ipnToken);
    if (!record) return undefined;
    // Read once the wallet is found, so a token that finds none costs one statement.
    const [callbacks, facts] = await Promise.all([
      this.callbacks.findLog(ipnToken, CALLBACK_LOG_LIMITS),
      this.orders.findFacts(record.walletId),
    ]);
    if (!callbacks || !facts) return undefined;
    const standing = orderStanding(facts);
    const { expectation, attempt } = facts;
    return {
      record,
      deposits: record.deposits.map((deposit) => ({
        deposit,
        coin: coinOfToken(deposit.token, this.settledToken),
        token: deposit.token ?? this.settledToken,
        creditedTo: record.payments.find((payment) => payment.id === attemptThatPaid(deposit, record.payments)),
      })),
      callbacks,
      order:
        standing.judged === undefined || expectation === undefined || attempt === undefined
          ? { totalUsdc: standing.totalUsdc }
          : {
              totalUsdc: standing.totalUsdc,
              judged: {
                classification: standing.judged,
                basis: expectation.basis,
                toleranceBps: orderToleranceBps(expectation.toleranceBps, facts.walletToleranceBps),
                windowEndsAt: expectation.windowEndsAt,
                attempt,
              },
            },
    };
  }
}
