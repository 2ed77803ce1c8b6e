import {
  asSentence,
  attemptThatPaid,
  COIN_NAMES,
  coinOfToken,
  formatUsdc,
  type AvailableProviderOption,
  type ProviderCatalogue,
  type ProviderPaymentStatus,
  receiptProgress,
  RECEIPT_STEPS,
  type ReceiptProgress,
  type ReceiptStep,
  isUuid,
  matchingPaymentKey,
  secondChanceFormToken,
  secondChanceLeft,
} from '@gateway/domain';
import type { PaymentReceiptRepository, ReceiptDepositRecord } from '@gateway/db/payment-redirect';

export interface ReceiptStepView {
  label: string;
  detail?: string;
  /** `held`: the USDC arrived and is final, but goes no further on its own (ReceiptProgress.waitingOn). */
  state: 'done' | 'current' | 'held' | 'todo';
}

export interface ReceiptTransactionView {
  amount: string;
  /** The token's name for the customer: USDC, or USDC.e (the other Polygon USDC). */
  coinName: string;
  hash: string;
  /** On the configured block explorer; absent when none is configured (a local chain). */
  href?: string;
}

/** One provider of the second chance: a button that posts `provider` to `action`. */
export interface SecondChoiceView {
  id: string;
  name: string;
  amount: string;
  currency: string;
  /** The order's own amount, when the provider charges it converted to USD, e.g. "49.99 EUR". */
  orderAmount?: string;
}

/** Another payment of the same order, on its own receipt page. */
export interface OtherAttemptView {
  providerName: string;
  href: string;
}

/** Everything the receipt page shows: the order and its progress, nothing personal. */
export interface ReceiptView {
  paymentId: string;
  amount: string;
  currency: string;
  providerName: string;
  /** Which provider the payment went (or is going) through, e.g. "Paying with MoonPay". */
  providerLine: string;
  step: ReceiptStep;
  headline: string;
  /** What happened, in a sentence or two; null where the page's notices say it. */
  message: string | null;
  steps: ReceiptStepView[];
  /** USDC that arrived in the temporary wallet: the merchant is paid this less the fee (and any affiliate's share), never this. */
  receivedUsdc: string | null;
  /** What arrived, in words per token ("12.00 USDC.e"); null when nothing did. */
  receivedText: string | null;
  transactions: ReceiptTransactionView[];
  /** The provider gave up (declined, failed) and no USDC arrived; `reason` is the provider's own words, as a sentence. */
  declined: { reason: string | null } | null;
  /**
   * The other providers that accept this order, for the same wallet, each a form carrying
   * `formToken` (derived from the payment's key); null when the second chance is not open, or the
   * page is not shown to the browser holding the key.
   */
  secondChance: { action: string; formToken: string; choices: SecondChoiceView[] } | null;
  /** The second chance is open, but only in the browser holding the payment's key: this page says so instead. */
  secondChanceElsewhere: boolean;
  /** The order was paid through a later attempt at another provider. */
  paidThrough: OtherAttemptView | null;
  /** A later attempt of the same order, not (yet) paid: the customer chose another provider. */
  laterAttempt: OtherAttemptView | null;
  waitingOn: ReceiptProgress['waitingOn'];
  merchantNotified: boolean;
  final: boolean;
}

const HEADLINES: Record<Exclude<ReceiptStep, 'waiting_for_provider'>, string> = {
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

/** The step after "Confirmed" when a deposit is held there: why the merchant has not been sent it. */
const HELD_STEP_DETAILS: Record<NonNullable<ReceiptProgress['waitingOn']>, string> = {
  next_deposit: 'Held until the next payment into this wallet',
  operator: 'Waiting for the gateway operator',
  other_token: 'USDC.e is held for the gateway operator',
};

/** What the page says while no USDC has arrived: the provider's status, in the customer's words. */
interface ProviderStatusWords {
  providerLine: string;
  headline: string;
  message: string;
  stepLabel: string;
  stepDetail: string;
}

function providerStatusWords(status: ProviderPaymentStatus | null, name: string): ProviderStatusWords {
  const arrivesBySelf = `This page updates by itself once ${name} delivers the payment. It usually takes under a minute after you pay.`;
  switch (status) {
    case null:
      return {
        providerLine: `Paying with ${name}`,
        headline: 'Waiting for the payment provider',
        message: arrivesBySelf,
        stepLabel: STEP_LABELS.waiting_for_provider,
        stepDetail: `Finish paying on ${name}'s page`,
      };
    case 'pending':
      return {
        providerLine: `Paying with ${name}`,
        headline: `${name} is processing your payment`,
        message: arrivesBySelf,
        stepLabel: STEP_LABELS.waiting_for_provider,
        stepDetail: `${name} is checking the payment`,
      };
    case 'charged':
      return {
        providerLine: `Paid with ${name}`,
        headline: `${name} charged your card`,
        message:
          `${name} is buying the USDC and sending it to the shop. This page updates by itself once it arrives; nothing else ` +
          `is needed from you.`,
        stepLabel: 'Card payment accepted',
        stepDetail: `${name} charged the card; the USDC is on its way`,
      };
    case 'paid':
      return {
        providerLine: `Paid with ${name}`,
        headline: `${name} took your payment`,
        message: `${name} says it sent the USDC to the shop. This page updates by itself once it arrives; nothing else is needed from you.`,
        stepLabel: 'Card payment accepted',
        stepDetail: `${name} says it sent the USDC; it has not arrived yet`,
      };
    case 'declined':
      return {
        providerLine: `Tried with ${name}`,
        headline: 'Your card was declined',
        message: `${name} declined the card. Nothing was charged.`,
        stepLabel: 'Card payment declined',
        stepDetail: 'The card was not charged',
      };
    case 'failed':
      return {
        providerLine: `Tried with ${name}`,
        headline: 'The payment did not go through',
        message: `${name} did not complete the payment and sent no USDC. If your card was charged, ${name} returns the money.`,
        stepLabel: 'Payment not completed',
        stepDetail: 'No USDC was sent',
      };
    default:
      return unworded(status);
  }
}

function unworded(status: never): never {
  throw new Error(`provider status ${String(status)} has no words on the receipt page`);
}

export interface ReceiptServiceOptions {
  /** USDC_TOKEN_ADDRESS: deposits in any other token are the other USDC (USDC.e). */
  settledToken: string;
  /** Block explorer link for a transaction, `{tx}` standing for its hash; null for none. */
  explorerTxUrl: string | null;
  /** Names the payment's provider (also one no longer offered). */
  providers: Pick<ProviderCatalogue, 'describe'>;
  /** SECOND_CHANCES_MAX: a payment that gave as many offers none. */
  secondChancesMax: number;
  /** The providers a payment may be paid with instead (PaymentService.secondChanceFor). */
  secondChanceFor(payment: {
    provider: string;
    amount: string;
    currency: string;
    providerStatus: ProviderPaymentStatus | null;
    usdcArrived: boolean;
  }): Promise<AvailableProviderOption[]>;
}

/** The customer's live receipt (every provider's return URL): what happened to their payment. */
export class ReceiptService {
  constructor(
    private readonly receipts: PaymentReceiptRepository,
    private readonly options: ReceiptServiceOptions,
  ) {}

  /** The receipt of `paymentId`; the second chance's forms only for a browser presenting its key among `keys`. */
  async view(paymentId: string, keys: readonly string[] = []): Promise<ReceiptView | undefined> {
    if (!isUuid(paymentId)) return undefined;
    const record = await this.receipts.findReceipt(paymentId.toLowerCase());
    if (!record) return undefined;
    const key = matchingPaymentKey(keys, record.keyHash);
    // A deposit is this payment's when it is credited to it, not to a later attempt of the same order.
    const creditedTo = (deposit: ReceiptDepositRecord) => attemptThatPaid(deposit, record.attempts);
    const own = record.deposits.filter((deposit) => creditedTo(deposit) === record.id);
    const progress = receiptProgress(record.providerStatus, own);
    const counted = own.filter((deposit) => deposit.status !== 'orphaned');
    const stepIndex = RECEIPT_STEPS.indexOf(progress.step);
    const providerName = this.nameOf(record.provider);
    const received = progress.deposits > 0 ? formatUsdc(progress.receivedUsdc) : null;
    const coinName = (deposit: ReceiptDepositRecord) => COIN_NAMES[coinOfToken(deposit.token, this.options.settledToken)];
    const receivedText = received === null ? null : amountsByCoin(counted, coinName);
    const words = providerStatusWords(record.providerStatus, providerName);
    const paidBy = record.deposits.find((deposit) => deposit.status !== 'orphaned' && creditedTo(deposit) !== record.id);
    const paidAttempt = paidBy && received === null ? record.attempts.find((attempt) => attempt.id === creditedTo(paidBy)) : undefined;
    const later = record.attempts.filter((attempt) => attempt.id !== record.id).at(-1);
    const otherView = (attempt: { id: string; provider: string }): OtherAttemptView => ({
      providerName: this.nameOf(attempt.provider),
      href: `/payment/${attempt.id}`,
    });
    const choices =
      paidAttempt || !progress.declined || !secondChanceLeft(record.secondChances, this.options.secondChancesMax)
        ? []
        : await this.options.secondChanceFor({ ...record, usdcArrived: record.deposits.some((d) => d.status !== 'orphaned') });
    // Held: every deposit went as far as it goes on its own; its step is done, and the next says why it stops there.
    const heldStep = progress.final && progress.waitingOn ? RECEIPT_STEPS[stepIndex + 1] : undefined;
    const details: Partial<Record<ReceiptStep, string>> = {
      waiting_for_provider: stepIndex > 0 ? `${providerName} took the card payment` : words.stepDetail,
      ...(receivedText ? { usdc_received: `${receivedText} arrived` } : {}),
      ...(heldStep && progress.waitingOn ? { [heldStep]: HELD_STEP_DETAILS[progress.waitingOn] } : {}),
    };
    return {
      paymentId: record.id,
      amount: record.amount,
      currency: record.currency,
      providerName,
      providerLine: paidAttempt ? `Tried with ${providerName}` : stepIndex > 0 ? `Paid with ${providerName}` : words.providerLine,
      step: progress.step,
      headline: paidAttempt
        ? `Paid with ${this.nameOf(paidAttempt.provider)}`
        : progress.waitingOn === 'other_token'
          ? `Paid in ${receivedText}: held for the operator`
          : progress.step === 'waiting_for_provider'
            ? words.headline
            : HEADLINES[progress.step],
      message: paidAttempt
        ? `This attempt with ${providerName} did not pay the order; your payment with ${this.nameOf(paidAttempt.provider)} did.`
        : progress.step === 'waiting_for_provider'
          ? words.message
          : null,
      steps: RECEIPT_STEPS.map((step, index) => ({
        label:
          step === 'waiting_for_provider' && stepIndex === 0
            ? words.stepLabel
            : step === heldStep
              ? 'Not sent to the merchant yet'
              : STEP_LABELS[step],
        ...(details[step] ? { detail: details[step] } : {}),
        state:
          index < stepIndex || (progress.final && index === stepIndex)
            ? 'done'
            : step === heldStep
              ? 'held'
              : index === stepIndex
                ? 'current'
                : 'todo',
      })),
      receivedUsdc: received,
      receivedText,
      transactions: counted.map((deposit) => ({
        amount: formatUsdc(deposit.amount),
        coinName: coinName(deposit),
        hash: deposit.txHash,
        ...(this.options.explorerTxUrl ? { href: this.options.explorerTxUrl.replace('{tx}', deposit.txHash) } : {}),
      })),
      declined:
        progress.declined && !paidAttempt ? { reason: record.providerReason ? asSentence(record.providerReason) || null : null } : null,
      secondChance:
        choices.length > 0 && key
          ? {
              action: `/payment/${record.id}/retry`,
              formToken: secondChanceFormToken(key, record.id),
              choices: choices.map((option) => ({
                id: option.provider.id,
                name: option.provider.displayName,
                amount: option.charge.amount.text,
                currency: option.charge.currency,
                ...(option.converted ? { orderAmount: `${record.amount} ${record.currency}` } : {}),
              })),
            }
          : null,
      secondChanceElsewhere: choices.length > 0 && !key,
      paidThrough: paidAttempt ? otherView(paidAttempt) : null,
      laterAttempt: progress.declined && !paidAttempt && later ? otherView(later) : null,
      waitingOn: progress.waitingOn,
      merchantNotified: counted.length > 0 && counted.every((deposit) => deposit.merchantNotified),
      // Another attempt paid: that payment's own page follows the USDC.
      final: progress.final || paidAttempt !== undefined,
    };
  }

  private nameOf(provider: string): string {
    return this.options.providers.describe(provider)?.displayName ?? provider;
  }
}

/** "12.00 USDC", or "10.00 USDC and 5.00 USDC.e" when both Polygon USDCs arrived. */
function amountsByCoin(deposits: readonly ReceiptDepositRecord[], coinName: (deposit: ReceiptDepositRecord) => string): string {
  const sums = new Map<string, bigint>();
  for (const deposit of deposits) sums.set(coinName(deposit), (sums.get(coinName(deposit)) ?? 0n) + deposit.amount);
  return [...sums].map(([name, sum]) => `${formatUsdc(sum)} ${name}`).join(' and ');
}
