import {
  asSentence,
  COIN_NAMES,
  formatMinorUnits,
  formatUsdc,
  RECEIPT_STEPS,
  type AvailableProviderOption,
  type NextTryRow,
  type ReceiptProgress,
  type ReceiptStep,
} from '@gateway/domain';
import type { OtherAttempt, Receipt, ReceiptOrder, ReceiptTransaction } from '../../services/receipt-service';
import type { NextTries } from '../../services/checkout/second-chance-service';
import { markedWords, preferredWords, providerRowView, type ProviderRowView } from '../shared/provider-row-words';
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

/** The order the payment is an attempt of, once judged: what arrived against what was asked, and the rest when it is short. */
export interface OrderView {
  state: ReceiptOrder['state'];
  /** In the order's currency, e.g. "20.83 of 50.00 USD arrived; 29.17 USD is missing." */
  summary: string;
  /** The USDC behind it, e.g. "20 USDC of the 48 USDC this order should bring after the provider's fee." */
  usdc: string;
  /** What the shop knows and what happens next, in a sentence or two. */
  next: string;
  /**
   * The providers that take the rest, each a form carrying `formToken`: the first few shown, the
   * others behind "more"; null when none is offered to this browser.
   */
  rest: { action: string; formToken: string; missing: string; choices: SecondChoiceView[]; moreChoices: SecondChoiceView[] } | null;
  /** The rest is offered, but only in the browser holding the payment's key: this page says so instead. */
  restElsewhere: boolean;
}

/** Everything the receipt page shows: the order and its progress, nothing personal. */
export interface ReceiptView {
  paymentId: string;
  amount: string;
  currency: string;
  providerName: string;
  /** Which provider the payment went (or is going) through, e.g. "Paying with MoonPay". */
  providerLine: string;
  /** Under the amount of a rest payment: the order it completes, e.g. "The rest of a 50.00 USD order". */
  amountNote: string | null;
  /** The order's judgement, once anything counted arrived and an attempt recorded what the order should bring. */
  order: OrderView | null;
  step: ReceiptStep;
  headline: string;
  /** What happened, in a sentence or two; null where the page's notices say it. */
  message: string | null;
  steps: ReceiptStepView[];
  /** USDC that arrived in the temporary wallet: the merchant is paid this less the fee (and any affiliate's share), never this. */
  receivedUsdc: string | null;
  /**
   * That the shop was paid, once the order is paid or overpaid (with all of the order's USDC, a rest's
   * included), or, without an expectation, with what this payment brought; null when the order is not paid.
   */
  paidText: string | null;
  /** What arrived, in words per token ("12.00 USDC.e"); null when nothing did. */
  receivedText: string | null;
  transactions: ReceiptTransactionView[];
  /** The provider gave up (declined, failed) and no USDC arrived; `reason` is the provider's own words, as a sentence. */
  declined: { reason: string | null } | null;
  /**
   * The other providers that accept this order, for the same wallet, each a form carrying
   * `formToken` (derived from the payment's key): ordered by the kind of the decline, headed by
   * what happened and what to try (DECLINE_NEXT_TRY), the first few shown, the others behind
   * "More providers"; null when the second chance is not open, or the page is not shown to the
   * browser holding the key.
   */
  secondChance: { action: string; formToken: string; intro: string; choices: ProviderRowView[]; moreChoices: ProviderRowView[] } | null;
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
  const { payment, progress, transactions, paidThrough, secondChance, order } = receipt;
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
    amountNote: payment.rest && order ? `The rest of a ${order.amount} ${order.currency} order` : null,
    order: order ? orderView(order, payment.id) : null,
    step: progress.step,
    headline: headlineOf(receipt, words.headline, receivedText),
    message: paidThrough
      ? `This attempt with ${providerName} brought no USDC; your payment with ${paidThrough.providerName} did.`
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
    paidText: paidText(order, received),
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
          ...nextTriesView(secondChance.tries, `${payment.amount} ${payment.currency}`),
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

/** The second chance's rows: the decline's rule says which come first and why, the row's own facts the rest. */
function nextTriesView(
  tries: NextTries,
  orderAmount: string,
): { intro: string; choices: ProviderRowView[]; moreChoices: ProviderRowView[] } {
  const { ranking, prices, country } = tries;
  const row = (next: NextTryRow): ProviderRowView => {
    const view = providerRowView(next, prices.prices.get(next.option.provider.id), orderAmount, country);
    const preferred = preferredWords(ranking.rule, next, country);
    const marked = markedWords(ranking.rule, next);
    return { ...view, ...(preferred ? { preferred } : {}), ...(marked ? { warning: marked } : {}) };
  };
  return { intro: ranking.rule.message.text, choices: ranking.recommended.map(row), moreChoices: ranking.more.map(row) };
}

/**
 * The shop was paid, in today's words when this payment brought what paid it; when the order took
 * more than this payment (a rest, or a rest's first part), its whole amount and USDC, never this
 * payment's alone as if it paid the order.
 */
function paidText(order: ReceiptOrder | null, received: string | null): string | null {
  if (order && order.state !== 'paid' && order.state !== 'overpaid') return null;
  const total = order ? formatUsdc(order.totalUsdc) : received;
  if (total === null) return null;
  if (!order || total === received) return `${total} USDC arrived and the shop has been paid for this order.`;
  return `All of this ${order.amount} ${order.currency} order arrived (${total} USDC) and the shop has been paid.`;
}

/** The order's state where it, not the payment's progress, is the news. */
const ORDER_HEADLINES: Partial<Record<ReceiptOrder['state'], string>> = {
  underpaid: 'Part of the payment is missing',
  late: 'Your payment arrived late',
};

/** The page's headline: the provider giving up on this attempt first, then an order short or late, then the payment's progress. */
function headlineOf(receipt: ReceiptFacts, providerHeadline: string, receivedText: string | null): string {
  const { progress, paidThrough, order } = receipt;
  const declined = progress.declined && !paidThrough;
  const orderHeadline = order ? ORDER_HEADLINES[order.state] : undefined;
  if (orderHeadline && !declined) return orderHeadline;
  if (paidThrough) return `Paid with ${paidThrough.providerName}`;
  if (progress.waitingOn === 'other_token') return `Paid in ${receivedText}: held for the operator`;
  return progress.step === 'waiting_for_provider' ? providerHeadline : HEADLINES[progress.step];
}

/** The order's judgement in the customer's words: its currency first, the USDC behind it, what the shop knows. */
function orderView(order: ReceiptOrder, paymentId: string): OrderView {
  const money = (minorUnits: bigint) => `${formatMinorUnits(minorUnits)} ${order.currency}`;
  const { balance } = order;
  const whole = money(balance.order);
  const usdc = `${formatUsdc(order.totalUsdc)} USDC arrived of the ${formatUsdc(order.expectedUsdc)} USDC this order should bring after the provider's fee.`;
  const told = order.shopTold ? 'The shop has been told' : 'The shop will be told as soon as it reaches them';
  const base = { state: order.state, usdc, rest: null, restElsewhere: false };
  switch (order.state) {
    case 'paid':
      return { ...base, summary: `${whole} arrived: the order is paid.`, next: 'Nothing else is needed from you.' };
    case 'overpaid':
      return {
        ...base,
        summary: `More than the order arrived: ${money(balance.arrived)} for a ${whole} order, ${money(balance.excess)} more.`,
        next: `${told}, and decides what to do with the difference; contact the shop about it, quoting the payment reference below.`,
      };
    case 'late':
      return {
        ...base,
        summary: `Your payment arrived after this order's window closed (${windowText(order.windowEndsAt)}).`,
        next: `${told}, and decides whether to accept it; contact the shop if you have a question, quoting the payment reference below.`,
      };
    case 'underpaid':
      return underpaidView(order, paymentId, { base, money, told });
    default:
      return unhandled(order.state);
  }
}

/** The rest's providers shown at once (the one chosen last first); the others wait behind "more", a phone's screen is short. */
const REST_CHOICES_SHOWN = 3;

function underpaidView(
  order: ReceiptOrder,
  paymentId: string,
  words: { base: Omit<OrderView, 'summary' | 'next'>; money: (minorUnits: bigint) => string; told: string },
): OrderView {
  const { balance, rest } = order;
  const missing = words.money(balance.missing);
  const summary = `${formatMinorUnits(balance.arrived)} of ${words.money(balance.order)} arrived; ${missing} is missing.`;
  if (rest?.kind === 'offered' && rest.formToken) {
    return {
      ...words.base,
      summary,
      next: `${words.told} that the order is short. Pay the rest below and the order is complete.`,
      rest: {
        action: `/payment/${paymentId}/rest`,
        formToken: rest.formToken,
        missing,
        choices: rest.choices.slice(0, REST_CHOICES_SHOWN).map(choiceView(order)),
        moreChoices: rest.choices.slice(REST_CHOICES_SHOWN).map(choiceView(order)),
      },
    };
  }
  if (rest?.kind === 'offered') {
    return {
      ...words.base,
      summary,
      next:
        `${words.told} that the order is short. You can pay the rest in the browser you started the payment in (open the ` +
        'payment link the shop gave you there), or ask the shop what to do.',
      restElsewhere: true,
    };
  }
  const why =
    rest?.kind === 'exhausted'
      ? 'This payment has been retried as many times as it may, so the rest cannot be paid here.'
      : `No payment provider takes an amount as small as ${missing}, so the rest cannot be paid here.`;
  return {
    ...words.base,
    summary,
    next: `${why} ${words.told} that the order is short by ${missing}; contact the shop, quoting the payment reference below.`,
  };
}

/** One provider of the rest: its charge, and the order's own currency when it charges USD instead. */
function choiceView(order: ReceiptOrder) {
  return (option: AvailableProviderOption): SecondChoiceView => ({
    id: option.provider.id,
    name: option.provider.displayName,
    amount: option.charge.amount.text,
    currency: option.charge.currency,
    ...(option.converted ? { orderAmount: `${formatMinorUnits(order.balance.missing)} ${order.currency}` } : {}),
  });
}

/** "28 November 2026, 14:00 UTC": a customer anywhere reads the same moment. */
function windowText(at: Date): string {
  return new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  }).format(at);
}

function unhandled(state: never): never {
  throw new Error(`order state ${String(state)} has no receipt wording`);
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
