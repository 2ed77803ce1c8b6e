import type { DeclineKind, ProviderPaymentStatus } from '@gateway/domain';
import { ProviderWebhookError, type ProviderWebhookEvent } from '../../provider-contract';
import { isObject } from '../../support/session-call';
import { paymentEvent, text } from '../../support/webhook-event';
import { webhookJson } from '../../support/webhook-json';

/**
 * A Guardarian transaction (the webhook's `payload`, and the answer of GET /v1/transaction/{id}) read
 * into the gateway's words. Statuses: the webhook page (https://docs.guardarian.com/docs/webhooks)
 * lists new, failed, refunded, finished, expired, canceled. `paid` only at `finished` (the crypto sent,
 * `output_hash` its transaction); no documented status says "card charged, crypto not yet sent", so
 * `charged` is never reached. Other words the look-up may answer are not documented: read as nothing yet.
 */
export const GUARDARIAN_STATUS: Readonly<Record<string, { status: ProviderPaymentStatus; reason?: string; declineKind?: DeclineKind }>> = {
  new: { status: 'pending' },
  finished: { status: 'paid' },
  failed: { status: 'failed', reason: 'Guardarian could not complete this purchase.' },
  refunded: { status: 'failed', reason: 'Guardarian refunded this purchase.' },
  // The one failure whose reason the webhook page's status names: not paid in time. The others give none (`other`).
  expired: { status: 'failed', reason: 'The purchase at Guardarian expired before it was paid.', declineKind: 'abandoned' },
  canceled: { status: 'failed', reason: 'The purchase was cancelled at Guardarian.' },
};

export function guardarianTransactionEvent(transaction: Record<string, unknown>): ProviderWebhookEvent | undefined {
  const raw = typeof transaction.status === 'string' ? transaction.status : '';
  const mapped = GUARDARIAN_STATUS[raw];
  if (!mapped) return undefined;
  const id = typeof transaction.id === 'number' || typeof transaction.id === 'string' ? String(transaction.id) : undefined;
  const paymentId = typeof transaction.external_partner_link_id === 'string' ? transaction.external_partner_link_id : undefined;
  const payout = isObject(transaction.payout_info) ? transaction.payout_info : {};
  const { event } = paymentEvent({
    status: mapped.status,
    rawStatus: raw,
    paymentId,
    providerReference: id && /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : undefined,
    walletAddress: text(payout.payout_address),
    network: text(transaction.to_network),
    asset: text(transaction.to_currency),
    reason: mapped.reason,
    declineKind: mapped.declineKind,
    refunded: raw === 'refunded',
  });
  const hash = transaction.output_hash;
  return mapped.status === 'paid' && typeof hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(hash) ? { ...event, txHash: hash } : event;
}

/** A webhook body `{"requesterType": "EXCHANGE", "version": …, "payload": {…}}`, unsigned: a hint only. */
export function guardarianWebhookEvent(rawBody: Buffer): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const body = webhookJson(rawBody, 'Guardarian webhook body');
  if (!isObject(body) || !isObject(body.payload)) throw new ProviderWebhookError('Guardarian webhook has no payload object');
  if (body.requesterType !== 'EXCHANGE') return { kind: 'ignored', why: `requesterType ${String(body.requesterType).slice(0, 40)}` };
  const event = guardarianTransactionEvent(body.payload);
  if (!event) return { kind: 'ignored', why: `status ${String(body.payload.status).slice(0, 40)}` };
  return { kind: 'event', event };
}
