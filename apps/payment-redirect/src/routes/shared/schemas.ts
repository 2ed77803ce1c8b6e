import { Type } from '@sinclair/typebox';

// Any string reaches the handler, so a mistyped link gets the "not found" page, not a JSON error.
export const paymentParams = Type.Object({
  paymentId: Type.String({ maxLength: 100, description: 'payment_id from Process Payment' }),
});

/** A page about one payment (`/payment/<id>…`): HTML, under the payment tag, `extra` for what it adds (a query). */
export function paymentPageSchema<Extra extends object>(summary: string, description: string, extra?: Extra) {
  return { summary, description, tags: ['payment'], params: paymentParams, produces: ['text/html'], ...(extra as Extra) };
}
