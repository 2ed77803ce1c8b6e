import type { FastifyReply } from 'fastify';
import { withDirective } from '@gateway/http';
import type { CheckoutTarget } from '@gateway/providers';

/**
 * Sends the customer's browser to a checkout, top-level: a redirect to a URL, or for a form the
 * page that posts it (on load, by a script from this host; by its button without JavaScript).
 * That page's Content-Security-Policy lets forms go to the provider's origin alone, not even back
 * here, so nothing injected into it could post the customer's data anywhere else.
 */
export function sendToCheckout(reply: FastifyReply, target: CheckoutTarget, page: { providerName: string; amount: string }): FastifyReply {
  if (target.kind === 'redirect') return reply.redirect(target.url, 302);
  const policy = reply.getHeader('content-security-policy');
  if (typeof policy === 'string') reply.header('content-security-policy', withFormAction(policy, new URL(target.action).origin));
  return reply.page('checkout-form', {
    title: `Continue to ${page.providerName}`,
    providerName: page.providerName,
    amount: page.amount,
    action: target.action,
    fields: Object.entries(target.fields).map(([name, value]) => ({ name, value })),
  });
}

/** The policy with `form-action` admitting `origin` alone; every other directive exactly as the host's policy has it. */
function withFormAction(policy: string, origin: string): string {
  return withDirective(policy, 'form-action', () => `form-action ${origin}`);
}
