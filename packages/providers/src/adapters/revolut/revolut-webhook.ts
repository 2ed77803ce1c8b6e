import type { ProviderPaymentStatus } from '@gateway/domain';
import type { ProviderWebhookEvent } from '../../provider-contract';
import { webhookJsonObject } from '../../support/webhook-json';
import { declineKindField, paymentMatch, text } from '../../support/webhook-event';

/**
 * Revolut Ramp's order webhooks
 * (https://developer.revolut.com/docs/guides/crypto-ramp/tutorials/work-with-webhooks/use-webhooks):
 * `{"order_id": <our externalOrderId>, "wallet": <address>, "event": "ORDER_…"}`, in no guaranteed
 * order. The event types are the EventType enum of the Crypto Ramp API 2.0 (revolut-engineering/
 * revolut-openapi, yaml/crypto-ramp-2.0.yaml); SELL_ORDER_* are off-ramp orders and are ignored.
 * The webhook carries no failure reason (GET /orders/{order_id} has it), so none is given.
 */
export const REVOLUT_EVENT_STATUS: Readonly<Record<string, ProviderPaymentStatus>> = {
  ORDER_CREATED: 'pending',
  ORDER_PROCESSING: 'pending',
  ORDER_COMPLETED: 'paid',
  ORDER_FAILED: 'failed',
};

export function revolutWebhookEvent(rawBody: Buffer): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const body = webhookJsonObject(rawBody, 'Revolut webhook body');
  const event = typeof body.event === 'string' ? body.event : '';
  const status = REVOLUT_EVENT_STATUS[event];
  if (!status) return { kind: 'ignored', why: `event ${event.slice(0, 40) || '(none)'}` };
  const paymentId = text(body.order_id);
  const walletAddress = text(body.wallet);
  return {
    kind: 'event',
    event: {
      match: paymentMatch({ paymentId, walletAddress }),
      status,
      rawStatus: event,
      ...declineKindField(status),
    },
  };
}
