import type { CallbackAttemptOutcome } from './callback-attempt-policy';
import type { StatusMove } from './state-moves';

/**
 * The merchant callback's state machine: which status of a delivery may follow which, and what each
 * move requires. The callback-worker's record writes the status `callbackDeliveryStatusAfter` gives,
 * the owner's function `resend_failed_callback_delivery` (migration 030) makes the resend, and the
 * table's CHECK constraint lists the same statuses (packages/db's tests compare both with this module).
 */
export const CALLBACK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'refused'] as const;
export type CallbackDeliveryStatus = (typeof CALLBACK_DELIVERY_STATUSES)[number];

export const CALLBACK_DELIVERY_MOVES = {
  retry: {
    from: ['pending'],
    to: 'pending',
    requires:
      'the latest attempt not taken, with a retry left on its schedule (refusals on the short one, any other failure on the long one)',
  },
  deliver: { from: ['pending'], to: 'delivered', requires: 'a 2xx answer to any attempt, even one that outlived its lease' },
  fail: {
    from: ['pending'],
    to: 'failed',
    requires: 'the latest attempt failed with the long schedule spent (about three days), or could never be sent',
  },
  refuse: {
    from: ['pending'],
    to: 'refused',
    requires: 'the latest attempt refused (a 4xx other than 408, 425 and 429) with the short schedule spent',
  },
  resend: {
    from: ['failed', 'refused'],
    to: 'pending',
    requires: "an operator's resend (the admin route or `gateway callbacks resend`): due now, with a new retry round",
  },
} as const satisfies Record<string, StatusMove<CallbackDeliveryStatus>>;

const MOVE_OF_OUTCOME = {
  delivered: CALLBACK_DELIVERY_MOVES.deliver,
  retry: CALLBACK_DELIVERY_MOVES.retry,
  failed: CALLBACK_DELIVERY_MOVES.fail,
  refused: CALLBACK_DELIVERY_MOVES.refuse,
} as const satisfies Record<CallbackAttemptOutcome['kind'], StatusMove<CallbackDeliveryStatus>>;

/** The status an attempt's outcome leaves its (pending) delivery in. */
export function callbackDeliveryStatusAfter(outcome: CallbackAttemptOutcome): CallbackDeliveryStatus {
  return MOVE_OF_OUTCOME[outcome.kind].to;
}
