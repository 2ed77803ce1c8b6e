import type { DeclineKind, ProviderPaymentStatus } from '@gateway/domain';
import type { ProviderWebhookEvent } from '../../provider-contract';
import { paymentEvent } from '../../support/webhook-event';

/**
 * Onramp.money's webhook data (https://docs.onramp.money/onramp/onramp-widget-integration/webhook-updates):
 * orderId, eventType, walletAddress, merchantRecognitionId (ours), status (a number) and
 * statusDescription, transactionHash, …; the on-ramp status codes are on
 * https://docs.onramp.money/onramp/response-codes/order-status-codes. That page names 4/15 "withdrawal complete" and
 * 5/16 "webhook sent" (after it): the crypto was sent, `paid`. From "deposit secured" (2) until then the customer's
 * money is in and the crypto not yet sent: `charged`. 11 ("order placement initiated") does not say the money is in:
 * `pending`, our choice.
 */
const STATUS: Readonly<Record<string, ProviderPaymentStatus>> = {
  '-4': 'failed', // amount mismatch: the customer paid a different amount
  '-3': 'declined', // bank and KYC name mismatch
  '-2': 'failed', // abandoned
  '-1': 'failed', // timed out
  '0': 'pending', // created
  '1': 'pending', // reference id claimed
  '2': 'charged', // deposit secured
  '3': 'charged', // crypto purchased
  '11': 'pending', // order placement initiated
  '12': 'charged', // purchasing crypto
  '13': 'charged', // crypto purchased
  '14': 'charged', // withdrawal initiated
  '4': 'paid', // withdrawal complete
  '15': 'paid', // withdrawal complete
  '5': 'paid', // webhook sent (after the withdrawal)
  '16': 'paid', // webhook sent (after the withdrawal)
};

const REASON: Readonly<Record<string, string>> = {
  '-4': 'the amount paid did not match the order',
  '-3': 'the name on the bank account does not match the verified identity',
  '-2': 'the payment was abandoned',
  '-1': 'the payment was not made in time',
};

/**
 * The failure codes of the order status codes page, in the kinds of the next try: -3 (the name on the
 * bank account is not the verified identity's) is an identity check failed; -2 (abandoned) and -1 (timed
 * out) are the customer leaving; -4 (the amount paid did not match) is `other`.
 */
const DECLINE_KIND: Readonly<Record<string, DeclineKind>> = {
  '-3': 'identity_failed',
  '-2': 'abandoned',
  '-1': 'abandoned',
};

export function onrampMoneyWebhookEvent(
  data: Readonly<Record<string, unknown>>,
): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  // The same endpoint receives off-ramp webhooks (eventType "offramp"), whose codes mean other things.
  if (data.eventType !== undefined && data.eventType !== 'onramp')
    return { kind: 'ignored', why: `event type ${String(data.eventType).slice(0, 40)}` };
  const rawStatus = typeof data.status === 'number' || typeof data.status === 'string' ? String(data.status) : '';
  const status = STATUS[rawStatus];
  if (!status) return { kind: 'ignored', why: `order status ${rawStatus.slice(0, 40) || '(none)'}` };
  const text = (value: unknown) =>
    typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
  const paymentId = text(data.merchantRecognitionId);
  const providerReference = text(data.orderId);
  const walletAddress = text(data.walletAddress);
  const reason = REASON[rawStatus];
  return paymentEvent({ status, rawStatus, paymentId, providerReference, walletAddress, reason, declineKind: DECLINE_KIND[rawStatus] });
}
