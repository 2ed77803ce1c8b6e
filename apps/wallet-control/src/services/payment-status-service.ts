import { attemptThatPaid, coinOfToken, type UsdcCoin } from '@gateway/domain';
import type {
  MerchantCallbackLimits,
  MerchantCallbackLog,
  MerchantCallbackRepository,
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

/** The payments into one wallet, as the merchant holding its ipn_token may know them (the route's view model words them). */
export interface WalletPayments {
  record: PaymentStatusRecord;
  deposits: CreditedDeposit[];
  /** Its callbacks and their attempts, the newest of each (CALLBACK_LOG_LIMITS). */
  callbacks: MerchantCallbackLog;
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
  ) {}

  /** undefined: no wallet has this ipn_token. */
  async statusOf(ipnToken: string): Promise<WalletPayments | undefined> {
    const record = await this.statuses.findByIpnToken(ipnToken);
    if (!record) return undefined;
    // Read once the wallet is found, so a token that finds none costs one statement.
    const callbacks = await this.callbacks.findLog(ipnToken, CALLBACK_LOG_LIMITS);
    if (!callbacks) return undefined;
    return {
      record,
      deposits: record.deposits.map((deposit) => ({
        deposit,
        coin: coinOfToken(deposit.token, this.settledToken),
        token: deposit.token ?? this.settledToken,
        creditedTo: record.payments.find((payment) => payment.id === attemptThatPaid(deposit, record.payments)),
      })),
      callbacks,
    };
  }
}
