import { Type } from '@sinclair/typebox';

export const callbackResendBody = Type.Object(
  {
    status: Type.Literal('success'),
    delivery_id: Type.String({
      format: 'uuid',
      description: 'the delivery sent again: the x-gateway-delivery-id it had, and has again (the same callback, not a new one)',
    }),
    delivery_status: Type.Literal('pending', { description: 'queued again, due now' }),
    next_attempt_at: Type.String({
      format: 'date-time',
      description:
        'when it became due (now): the callback-worker sends it within about two of its reconciler intervals (RECONCILE_INTERVAL_MS, ' +
        '5 s by default); its attempts then show in payment-status.php under callback_log',
    }),
  },
  { description: "the wallet's latest callback, queued again" },
);
