import { canMove } from '../src/state-moves';
import {
  CALLBACK_DELIVERY_MOVES,
  CALLBACK_DELIVERY_STATUSES,
  callbackDeliveryStatusAfter,
  type CallbackDeliveryStatus,
} from '../src/callback-delivery-states';

describe('the callback delivery state machine', () => {
  it('leaves pending only by an attempt, and comes back to it only by a resend of a failed or refused delivery', () => {
    const moves: Array<[CallbackDeliveryStatus, CallbackDeliveryStatus]> = [];
    for (const from of CALLBACK_DELIVERY_STATUSES) {
      for (const to of CALLBACK_DELIVERY_STATUSES) if (canMove(CALLBACK_DELIVERY_MOVES, from, to)) moves.push([from, to]);
    }
    expect(moves).toEqual([
      ['pending', 'pending'],
      ['pending', 'delivered'],
      ['pending', 'failed'],
      ['pending', 'refused'],
      ['failed', 'pending'],
      ['refused', 'pending'],
    ]);
  });

  it('names the status each attempt outcome leaves', () => {
    expect(callbackDeliveryStatusAfter({ kind: 'delivered' })).toBe('delivered');
    expect(callbackDeliveryStatusAfter({ kind: 'retry', nextAttemptAt: new Date(), refusalsInRow: 2 })).toBe('pending');
    expect(callbackDeliveryStatusAfter({ kind: 'failed' })).toBe('failed');
    expect(callbackDeliveryStatusAfter({ kind: 'refused', refusalsInRow: 5 })).toBe('refused');
  });
});
