import { asSentence, COIN_NAMES, formatUsdc, RECEIPT_STEPS, type ReceiptProgress, type ReceiptStep } from '@gateway/domain';
import type { OtherAttempt, Receipt, ReceiptTransaction } from '../../services/receipt-service';
import { providerStatusWords, WAITING_FOR_PROVIDER } from './provider-status-words';

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
  waiting_for_provider: WAITING_FOR_PROVIDER,
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

type ReceiptFacts = Extract<Receipt, { kind: 'receipt' }>;

/** The receipt page: the facts of the payment, in the customer's words. */
export function receiptView(receipt: ReceiptFacts): ReceiptView {
  const { payment, progress, transactions, paidThrough, secondChance } = receipt;
  const { providerName } = payment;
  const stepIndex = RECEIPT_STEPS.indexOf(progress.step);
  const received = progress.deposits > 0 ? formatUsdc(progress.receivedUsdc) : null;
  const receivedText = received === null ? null : amountsByCoin(transactions);
  const words = providerStatusWords(payment.providerStatus, providerName);
  // Held: every deposit went as far as it goes on its own; its step is done, and the next says why it stops there.
  const heldStep = progress.final && progress.waitingOn ? RECEIPT_STEPS[stepIndex + 1] : undefined;
  const details: Partial<Record<ReceiptStep, string>> = {
    waiting_for_provider: stepIndex > 0 ? `${providerName} took the card payment` : words.stepDetail,
    ...(receivedText ? { usdc_received: `${receivedText} arrived` } : {}),
    ...(heldStep && progress.waitingOn ? { [heldStep]: HELD_STEP_DETAILS[progress.waitingOn] } : {}),
  };
  return {
    paymentId: payment.id,
    amount: payment.amount,
    currency: payment.currency,
    providerName,
    providerLine: paidThrough ? `Tried with ${providerName}` : stepIndex > 0 ? `Paid with ${providerName}` : words.providerLine,
    step: progress.step,
    headline: paidThrough
      ? `Paid with ${paidThrough.providerName}`
      : progress.waitingOn === 'other_token'
        ? `Paid in ${receivedText}: held for the operator`
        : progress.step === 'waiting_for_provider'
          ? words.headline
          : HEADLINES[progress.step],
    message: paidThrough
      ? `This attempt with ${providerName} did not pay the order; your payment with ${paidThrough.providerName} did.`
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
    transactions: transactions.map((transaction) => ({
      amount: formatUsdc(transaction.amount),
      coinName: COIN_NAMES[transaction.coin],
      hash: transaction.txHash,
      ...(transaction.href ? { href: transaction.href } : {}),
    })),
    declined:
      progress.declined && !paidThrough ? { reason: payment.providerReason ? asSentence(payment.providerReason) || null : null } : null,
    secondChance: secondChance?.formToken
      ? {
          action: `/payment/${payment.id}/retry`,
          formToken: secondChance.formToken,
          choices: secondChance.choices.map((option) => ({
            id: option.provider.id,
            name: option.provider.displayName,
            amount: option.charge.amount.text,
            currency: option.charge.currency,
            ...(option.converted ? { orderAmount: `${payment.amount} ${payment.currency}` } : {}),
          })),
        }
      : null,
    secondChanceElsewhere: secondChance !== null && !secondChance.formToken,
    paidThrough: paidThrough ? otherAttemptView(paidThrough) : null,
    laterAttempt: progress.declined && !paidThrough && receipt.laterAttempt ? otherAttemptView(receipt.laterAttempt) : null,
    waitingOn: progress.waitingOn,
    merchantNotified: transactions.length > 0 && transactions.every((transaction) => transaction.merchantNotified),
    // Another attempt paid: that payment's own page follows the USDC.
    final: progress.final || paidThrough !== null,
  };
}

function otherAttemptView(attempt: OtherAttempt): OtherAttemptView {
  return { providerName: attempt.providerName, href: `/payment/${attempt.id}` };
}

/** "12.00 USDC", or "10.00 USDC and 5.00 USDC.e" when both Polygon USDCs arrived. */
function amountsByCoin(transactions: readonly ReceiptTransaction[]): string {
  const sums = new Map<string, bigint>();
  for (const { coin, amount } of transactions) sums.set(COIN_NAMES[coin], (sums.get(COIN_NAMES[coin]) ?? 0n) + amount);
  return [...sums].map(([name, sum]) => `${formatUsdc(sum)} ${name}`).join(' and ');
}
