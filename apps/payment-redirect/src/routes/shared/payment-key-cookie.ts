import type { FastifyReply, FastifyRequest } from 'fastify';
import { cookieValues, type GatewayError, PAYMENT_KEY_COOKIE, PAYMENT_KEY_COOKIE_MAX_AGE_SECONDS } from '@gateway/domain';
import { prefersJson, recordOutcome } from '@gateway/http';

/** The payment keys a request's cookies present (the browser sends the one scoped to the payment's path). */
export function cookieKeys(request: FastifyRequest): string[] {
  return cookieValues(request.headers.cookie, PAYMENT_KEY_COOKIE);
}

/**
 * Gives the browser a payment's key. HttpOnly: no script reads it. SameSite=Lax: sent when the
 * provider sends the customer back (a top-level navigation) and with the receipt's own form, never
 * with another site's POST. Secure under https. Scoped to /payment/<id>: each payment has its own,
 * and no other page of the host receives it.
 */
export function givePaymentKey(reply: FastifyReply, publicUrl: string, paymentId: string, key: string): void {
  const attributes = [
    `${PAYMENT_KEY_COOKIE}=${key}`,
    `Path=/payment/${paymentId}`,
    `Max-Age=${PAYMENT_KEY_COOKIE_MAX_AGE_SECONDS}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(publicUrl.startsWith('https:') ? ['Secure'] : []),
  ];
  reply.header('set-cookie', attributes.join('; '));
}

/**
 * 403 for a request without the payment's key, or a form from another site: the error for a JSON
 * client, else a page that says what to do (the receipt stays readable by anyone with its link).
 */
export function sendPaymentRefused(request: FastifyRequest, reply: FastifyReply, error: GatewayError, paymentId: string) {
  recordOutcome(request, 'payment action refused', { paymentId, code: error.code });
  if (prefersJson(request.headers.accept)) return reply.code(error.statusCode).send(error.toBody());
  const crossSite = error.code === 'cross_site_request';
  return reply.page(
    'payment-refused',
    {
      title: 'Continue where you started',
      heading: crossSite ? 'This form did not come from your receipt' : 'Continue in the browser you started in',
      intro: crossSite
        ? 'A page on another site tried to send this form for you, so it was not sent.'
        : 'Only the browser this payment was started in can continue it or pay it another way: the link to this page alone ' +
          'is not enough, so nobody else who sees it can act in your name.',
      receiptHref: `/payment/${paymentId}`,
    },
    error.statusCode,
  );
}
