import {
  type OrderAttempt,
  OrderRepository,
  type RecordedOrderFacts,
  type StoryAttempt,
  WalletStoryRepository,
  type StoryKey,
  type WalletStory,
} from '@gateway/db/cli';
import {
  type ExpectationBasis,
  formatUsdc,
  isDepositId,
  isHexAddress,
  isTxHash,
  isUuid,
  type OrderState,
  orderStanding,
  orderToleranceBps,
} from '@gateway/domain';
import { CommandFailed, parseCommandArgs, toJson, UsageError, type CliIo } from '../command-kit';
import { openDatabase, withDatabase } from '../database';

export interface StoryEvent {
  at: Date;
  /** What the line is about: `wallet`, `payment <uuid>`, `deposit 12`, `payout 31 (merchant)`, `callback <uuid>`. */
  subject: string;
  text: string;
}

/** Tells the kinds of key apart by their form; anything else is a usage error. */
export function storyKey(query: string): StoryKey {
  if (isTxHash(query)) return { by: 'tx_hash', value: query.toLowerCase() };
  if (isHexAddress(query)) return { by: 'address', value: query.toLowerCase() };
  if (isUuid(query)) return { by: 'id', value: query.toLowerCase() };
  if (isDepositId(query)) return { by: 'deposit', value: query };
  if (/^[A-Za-z0-9_-]{16,64}$/.test(query)) return { by: 'ipn_token', value: query };
  throw new UsageError(`${query} is none of: an ipn_token, a tx hash, a payment or callback delivery id (uuid), a deposit id, an address`);
}

const usdc = (amount: bigint) => `${formatUsdc(amount)} USDC`;

/** What the merchant answered an attempt (its status and the start of its body), or why there was no answer. */
function attemptAnswer(attempt: StoryAttempt): string {
  return attempt.statusCode !== null
    ? `HTTP ${attempt.statusCode}${attempt.responseExcerpt ? `: ${JSON.stringify(attempt.responseExcerpt)}` : ''}`
    : `${attempt.errorCode ?? 'error'}${attempt.error ? `: ${attempt.error}` : ''}`;
}

/** Every recorded moment of the wallet, in order (by time, then in the order the gateway did them). */
export function storyEvents({ wallet, payments, deposits, payouts, deliveries }: WalletStory): StoryEvent[] {
  const events: StoryEvent[] = [];
  const add = (at: Date | null, subject: string, text: string) => {
    if (at) events.push({ at, subject, text });
  };
  const split =
    wallet.affiliateAddress === null
      ? `platform fee ${wallet.platformFeeBps} bps`
      : `affiliate ${wallet.affiliateAddress} at ${wallet.affiliateFeeBps} bps, merchant ${wallet.merchantFeeBps ?? '-'} bps, ` +
        `platform ${wallet.platformFeeBps} bps`;
  add(
    wallet.createdAt,
    'wallet',
    `created: temporary address ${wallet.temporaryAddress}, payout ${wallet.payoutAddress}, ${split}, callback ${wallet.callbackUrl}`,
  );
  add(wallet.callbackReleasedAt, 'wallet', 'callback released by the operator: never called again for this wallet');
  for (const payment of payments) {
    const subject = `payment ${payment.id}`;
    const error = payment.checkoutError ? ` (checkout error: ${payment.checkoutError})` : '';
    add(payment.createdAt, subject, `created: ${payment.amount} ${payment.currency} by ${payment.provider}, now ${payment.status}${error}`);
    add(payment.checkoutServedAt, subject, `checkout served (${payment.checkoutAttempts} attempt(s))`);
    if (payment.providerStatus !== null) {
      const extra = [
        payment.providerRawStatus && `provider says ${payment.providerRawStatus}`,
        payment.providerReason && `reason ${payment.providerReason}`,
        payment.providerDeclineKind && `kind ${payment.providerDeclineKind}`,
        payment.providerReference && `reference ${payment.providerReference}`,
        payment.providerTxHash && `tx ${payment.providerTxHash}`,
      ].filter(Boolean);
      add(
        payment.providerUpdatedAt ?? payment.createdAt,
        subject,
        `provider status ${payment.providerStatus}${extra.length ? ` (${extra.join(', ')})` : ''}`,
      );
    }
  }
  for (const deposit of deposits) {
    const subject = `deposit ${deposit.id}`;
    const swept = deposit.sweptByDepositId ? `, swept by deposit ${deposit.sweptByDepositId}` : '';
    add(
      deposit.seenAt,
      subject,
      `seen: ${usdc(deposit.amount)} from ${deposit.fromAddress}, tx ${deposit.txHash} (log ${deposit.logIndex}, block ` +
        `${deposit.blockNumber}), now ${deposit.status}${swept}`,
    );
    add(deposit.finalAt, subject, 'final');
    const otherToken = deposit.status === 'held_for_operator' || deposit.status === 'paid_by_operator';
    add(
      deposit.heldAt,
      subject,
      otherToken ? 'held for the operator (a token this gateway does not settle)' : 'held (dust, or its payout would not earn its gas)',
    );
    const byHand = deposit.handPayout;
    if (byHand) {
      const share = byHand.paid === 'merchant_share' ? "the merchant's share" : 'the whole deposit';
      add(byHand.recordedAt, subject, `paid by hand: ${usdc(byHand.amount)} (${share}) to ${byHand.toAddress}, tx ${byHand.txHash}`);
    }
    add(
      deposit.attentionAt,
      subject,
      `needs attention: ${deposit.attentionReason ?? '?'}${deposit.attentionDetail ? ` (${deposit.attentionDetail})` : ''}`,
    );
    add(deposit.forwardedAt, subject, 'forwarded');
  }
  for (const payout of payouts) {
    const subject = `payout ${payout.id} (${payout.leg})`;
    const replaces = payout.replacesPayoutId ? `, replaces payout ${payout.replacesPayoutId}` : '';
    add(
      payout.createdAt,
      subject,
      `planned for deposit ${payout.depositId}: ${usdc(payout.amount)} to ${payout.toAddress}, now ${payout.status}${replaces}`,
    );
    for (const transaction of payout.transactions) {
      add(
        transaction.sentAt ?? transaction.createdAt,
        subject,
        `${transaction.reason} transaction ${transaction.txHash} (relayer nonce ${transaction.relayerNonce}): ${transaction.status}`,
      );
    }
    add(
      payout.attentionAt,
      subject,
      `needs attention: ${payout.attentionReason ?? '?'}${payout.attentionDetail ? ` (${payout.attentionDetail})` : ''}`,
    );
    add(payout.confirmedAt, subject, `confirmed: tx ${payout.txHash ?? '?'} in block ${payout.blockNumber ?? '?'}`);
    add(payout.cancelledAt, subject, 'cancelled (its authorization cancelled on chain by a replan)');
  }
  for (const delivery of deliveries) {
    const subject = `callback ${delivery.id}`;
    add(
      delivery.createdAt,
      subject,
      `created for deposit ${delivery.depositId}: value ${usdc(delivery.valueCoin)}, forwarded ${usdc(delivery.valueForwardedCoin)}, ` +
        `fee ${usdc(delivery.feeCoin)}, txid_out ${delivery.txidOut}; now ${delivery.status} after ${delivery.attemptCount} attempt(s)` +
        (delivery.status === 'pending' && delivery.nextAttemptAt ? `, next at ${delivery.nextAttemptAt.toISOString()}` : ''),
    );
    for (const attempt of delivery.attempts) {
      add(
        attempt.startedAt,
        subject,
        `attempt ${attempt.attemptNo}: ${attemptAnswer(attempt)}${attempt.durationMs !== null ? ` (${attempt.durationMs} ms)` : ''}`,
      );
    }
    // By an operator (gateway callbacks resend, the admin route) or the merchant (resend-callback.php): the row does not say which.
    add(delivery.resentAt, subject, `resent on request (${delivery.resendCount} time(s))`);
    add(delivery.deliveredAt, subject, 'delivered');
    // The delivery's end, after its last attempt (a stable sort keeps it there), with the answer that ended it.
    const last = delivery.attempts.at(-1);
    if (last && (delivery.status === 'refused' || delivery.status === 'failed')) {
      const how =
        delivery.status === 'refused'
          ? `refused by the merchant (a 4xx other than 408, 425 and 429, after the short retry schedule): ${attemptAnswer(last)}`
          : `failed for good: ${delivery.lastError ?? attemptAnswer(last)}`;
      add(last.startedAt, subject, `${how}; \`gateway callbacks resend ${delivery.id}\` sends it again`);
    }
  }
  // Stable: moments with the same time keep the order above (created before served, sent before confirmed).
  return events.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** Where the wallet's order stands now, judged as its callbacks and Check Payment Status judge it (order-state.ts). */
export interface StoryOrder {
  totalUsdc: bigint;
  reason: string;
  /** Null when no attempt on the wallet recorded what the order should bring: the total is not judged. */
  judged: {
    state: OrderState;
    expectedUsdc: bigint;
    basis: ExpectationBasis;
    missingUsdc: bigint;
    excessUsdc: bigint;
    lateUsdc: bigint;
    /** The attempt's tolerance, narrowed by the merchant's own. */
    toleranceBps: number;
    windowEndsAt: Date;
    attempt: OrderAttempt;
  } | null;
}

export function storyOrder(facts: RecordedOrderFacts): StoryOrder {
  const { totalUsdc, judged } = orderStanding(facts);
  const { expectation, attempt } = facts;
  if (judged === undefined || expectation === undefined || attempt === undefined) {
    return {
      totalUsdc,
      reason:
        `${usdc(totalUsdc)} arrived; no payment attempt recorded what the order should bring (paid without Process Payment, or ` +
        'before the gateway recorded orders), so it is not judged',
      judged: null,
    };
  }
  return {
    totalUsdc,
    reason: judged.reason,
    judged: {
      state: judged.state,
      expectedUsdc: judged.expectedUsdc,
      basis: expectation.basis,
      missingUsdc: judged.missingUsdc,
      excessUsdc: judged.excessUsdc,
      lateUsdc: judged.lateUsdc,
      toleranceBps: orderToleranceBps(expectation.toleranceBps, facts.walletToleranceBps),
      windowEndsAt: expectation.windowEndsAt,
      attempt,
    },
  };
}

/** The story's last lines: the order's state and why, then the figures it was judged by. */
export function orderLines({ totalUsdc, reason, judged }: StoryOrder): string[] {
  if (judged === null) return [`order now: not judged: ${reason}`];
  const { attempt } = judged;
  return [
    `order now: ${judged.state}: ${reason}`,
    `  judged by payment ${attempt.paymentId} (${attempt.provider}, ${attempt.amount} ${attempt.currency} = ${attempt.amountUsd} USD): ` +
      `expected ${usdc(judged.expectedUsdc)} (${judged.basis}), tolerance ${judged.toleranceBps} bps, window ends ` +
      `${judged.windowEndsAt.toISOString()}; total ${usdc(totalUsdc)}, missing ${usdc(judged.missingUsdc)}, excess ` +
      `${usdc(judged.excessUsdc)}, late ${usdc(judged.lateUsdc)}`,
  ];
}

/** `gateway story <key>`: the whole story of the wallet(s) the key leads to, human text or --json. */
export async function storyCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {});
  if (positionals.length !== 1) throw new UsageError('name one ipn_token, tx hash, payment id, delivery id, deposit id or address');
  const query = positionals[0]!;
  const key = storyKey(query);
  const stories = await withDatabase(openDatabase(io.env, 'story'), async (pool) => {
    const repository = new WalletStoryRepository(pool);
    const orders = new OrderRepository(pool);
    const found: Array<{ story: WalletStory; order: StoryOrder }> = [];
    for (const id of await repository.findWallets(key)) {
      const [story, facts] = [await repository.story(id), await orders.findFacts(id)];
      if (story && facts) found.push({ story, order: storyOrder(facts) });
    }
    return found;
  });
  if (stories.length === 0)
    throw new CommandFailed(`nothing in this gateway matches ${query} (looked it up as ${key.by.replace('_', ' ')})`);
  if (values.json) {
    io.out(
      toJson({ query, matchedBy: key.by, wallets: stories.map(({ story, order }) => ({ ...story, events: storyEvents(story), order })) }),
    );
    return 0;
  }
  for (const [index, { story, order }] of stories.entries()) {
    if (index > 0) io.out('');
    io.out(`wallet ${story.wallet.temporaryAddress} (id ${story.wallet.id})`);
    for (const event of storyEvents(story)) io.out(`${event.at.toISOString()}  ${event.subject.padEnd(16)}  ${event.text}`);
    for (const line of orderLines(order)) io.out(line);
  }
  return 0;
}
