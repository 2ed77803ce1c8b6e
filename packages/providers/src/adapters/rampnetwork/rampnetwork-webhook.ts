import type { DeclineKind, ProviderPaymentStatus } from '@gateway/domain';
import type { ProviderWebhookEvent } from '../../provider-contract';
import { declineKindField, destination, paymentMatch, text } from '../../support/webhook-event';
import { isObject } from '../../support/session-call';

/**
 * Ramp's purchase webhooks (https://docs.rampnetwork.com/webhooks): `{"type": "CREATED" |
 * "RELEASED" | "RETURNED", "purchase": RampPurchase}`, the purchase being the SDK's object
 * (RampNetwork/ramp-instant-sdk src/types.ts: id, receiverAddress, status, asset, …). Off-ramp
 * sales come as `{"type", "mode": "OFFRAMP", "payload": RampSale}` and are not ours.
 * Ramp takes no order reference of ours: a purchase is matched by the wallet it pays
 * (`receiverAddress`, the temporary wallet) and by its own id; its destination is that wallet and
 * its `asset` (`symbol` MATIC_USDC, `chain` MATIC).
 */
const PURCHASE_STATUS: Readonly<Record<string, ProviderPaymentStatus>> = {
  INITIALIZED: 'pending',
  PAYMENT_STARTED: 'pending',
  PAYMENT_IN_PROGRESS: 'pending',
  PAYMENT_EXECUTED: 'pending',
  FIAT_SENT: 'pending',
  FIAT_RECEIVED: 'pending',
  RELEASING: 'pending',
  RELEASED: 'paid',
  PAYMENT_FAILED: 'declined',
  EXPIRED: 'failed',
  CANCELLED: 'failed',
};

const REASON: Readonly<Record<string, string>> = {
  PAYMENT_FAILED: 'the card payment failed',
  RETURNED: 'Ramp returned the payment',
};

/**
 * An EXPIRED purchase is one the customer let run out before paying (the SDK's purchase statuses);
 * PAYMENT_FAILED, CANCELLED and RETURNED name no reason Ramp documents: `other`.
 */
const DECLINE_KIND: Readonly<Record<string, DeclineKind>> = {
  EXPIRED: 'abandoned',
};

/** Event types about a purchase; `ERROR` is the legacy reference's fourth type, read by the purchase's status. */
const PURCHASE_EVENT_TYPES = new Set(['CREATED', 'RELEASED', 'RETURNED', 'ERROR']);

/** `body` is the JSON already parsed for the signature check. */
export function rampWebhookEvent(body: unknown): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const record = isObject(body) ? body : {};
  const type = typeof record.type === 'string' ? record.type : '';
  if (record.mode === 'OFFRAMP') return { kind: 'ignored', why: 'an off-ramp sale' };
  if (!PURCHASE_EVENT_TYPES.has(type)) return { kind: 'ignored', why: `event type ${type.slice(0, 40) || '(none)'}` };
  const purchase = isObject(record.purchase) ? record.purchase : undefined;
  if (!purchase) return { kind: 'ignored', why: `${type} event without a purchase` };

  const purchaseStatus = typeof purchase.status === 'string' ? purchase.status : '';
  // RETURNED: Ramp sent the money back to the customer, whatever stage the purchase had reached.
  const rawStatus = type === 'RETURNED' ? 'RETURNED' : purchaseStatus;
  const status = type === 'RETURNED' ? 'failed' : PURCHASE_STATUS[purchaseStatus];
  if (!status) return { kind: 'ignored', why: `purchase status ${purchaseStatus.slice(0, 40) || '(none)'}` };

  const providerReference = text(purchase.id);
  const walletAddress = text(purchase.receiverAddress);
  const asset = isObject(purchase.asset) ? purchase.asset : {};
  const delivers = destination({ address: walletAddress, network: text(asset.chain), asset: text(asset.symbol) });
  return {
    kind: 'event',
    event: {
      match: paymentMatch({ providerReference, walletAddress }),
      status,
      rawStatus,
      ...(providerReference ? { providerReference } : {}),
      ...(REASON[rawStatus] ? { reason: REASON[rawStatus] } : {}),
      ...declineKindField(status, DECLINE_KIND[rawStatus]),
      ...(Object.keys(delivers).length > 0 ? { destination: delivers } : {}),
      // RETURNED: the money went back to the customer.
      ...(type === 'RETURNED' ? { refunded: true } : {}),
    },
  };
}
