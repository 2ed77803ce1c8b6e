import { Type } from '@sinclair/typebox';

// Any string reaches the handler, so a mistyped link gets the "not found" page, not a JSON error.
export const paymentParams = Type.Object({
  paymentId: Type.String({ maxLength: 100, description: 'payment_id from Process Payment' }),
});
