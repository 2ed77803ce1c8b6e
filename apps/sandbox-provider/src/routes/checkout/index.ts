import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyReply } from 'fastify';
import type { SandboxMetrics } from '../../metrics';
import { checkCard } from '../../services/card-check';
import { readCheckoutLink, type CheckoutLinkOptions, type CheckoutOrder } from '../../services/checkout-link';
import type { CheckoutService } from '../../services/checkout-service';
import { DeliveryPendingError, type Delivery } from '../../services/order-payer';
import { checkoutPage, linkProblemPages, orderStatusPage, paymentApprovedPage, paymentUnderWayPage } from './view-model';
import { checkoutForm, checkoutQuery } from './schemas';

export interface CheckoutRoutesOptions {
  checkout: CheckoutService;
  link: CheckoutLinkOptions;
  metrics: SandboxMetrics;
}

/** The simulated provider's hosted checkout: the page, and the card form it posts. */
export const checkoutRoutes: FastifyPluginAsyncTypebox<CheckoutRoutesOptions> = async (app, { checkout, link, metrics }) => {
  // The card form is all a browser posts here; any other body gets 415.
  app.removeAllContentTypeParsers();
  await app.register(formbody);
  // A customer on these pages gets a page back whatever fails, never the API's JSON error.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status === 429) {
      return reply.page('notice', { heading: 'Too many attempts', message: 'Wait a minute, then try again.', tone: 'bad' }, 429);
    }
    if (status >= 400 && status < 500) {
      return reply.page(
        'notice',
        { heading: 'This payment form could not be read', message: 'Go back to the shop and start the payment again.', tone: 'bad' },
        status,
      );
    }
    request.log.error({ err: error }, 'checkout failed');
    return reply.page(
      'notice',
      {
        heading: 'Payment not completed',
        message: 'The sandbox could not complete this payment just now. Try again in a moment: an order is never paid twice.',
        tone: 'bad',
      },
      503,
    );
  });

  const linkProblem = (reply: FastifyReply, problem: 'invalid' | 'expired') => {
    const { status, ...page } = linkProblemPages[problem];
    return reply.page('notice', page, status);
  };

  /** Sends the USDC (or waits for the transfer already sent), then returns the customer to the gateway. */
  const deliverAndReturn = async (reply: FastifyReply, order: CheckoutOrder, delivery: () => Promise<Delivery>) => {
    try {
      const { justPaid, usdc } = await delivery();
      metrics.checkouts.inc({ outcome: justPaid ? 'paid' : 'replayed' });
      return reply.page('notice', paymentApprovedPage(order, usdc));
    } catch (error) {
      if (!(error instanceof DeliveryPendingError)) throw error;
      return reply.page('notice', paymentUnderWayPage(order), 202);
    }
  };

  app.get(
    '/checkout',
    {
      schema: {
        summary: 'Sandbox checkout page',
        description:
          'HTML card form for a checkout link signed by the gateway (payment-redirect). Test cards only; pays test USDC on the local ' +
          'chain.',
        tags: ['checkout'],
        querystring: checkoutQuery,
        produces: ['text/html'],
      },
      attachValidation: true,
    },
    async (request, reply) => {
      if (request.validationError) return linkProblem(reply, 'invalid');
      const reading = readCheckoutLink(request.query, link);
      if (!reading.ok) return linkProblem(reply, reading.problem);
      const { order } = reading;
      const existing = await checkout.findOrder(order.paymentId);
      if (existing) return reply.page('notice', orderStatusPage(order, existing));
      return reply.page('checkout', checkoutPage(order, link.feeBps));
    },
  );

  app.post(
    '/checkout',
    {
      schema: {
        summary: 'Pay with a test card',
        description:
          'The card form (application/x-www-form-urlencoded) with the signed link fields. When paid, a page that takes the customer ' +
          'on to the gateway receipt; 422 with the form for a field error; 402 for a declined card.',
        tags: ['checkout'],
        body: checkoutForm,
        produces: ['text/html'],
      },
      attachValidation: true,
    },
    async (request, reply) => {
      if (request.validationError) return linkProblem(reply, 'invalid');
      const form = request.body;
      const reading = readCheckoutLink(form, link);
      if (!reading.ok) return linkProblem(reply, reading.problem);
      const { order } = reading;
      if (await checkout.findOrder(order.paymentId)) {
        return deliverAndReturn(reply, order, () => checkout.complete(order.paymentId, order.provider.id));
      }
      const card = { name: form.name ?? '', number: form.number ?? '', expiry: form.expiry ?? '', cvc: form.cvc ?? '' };
      const check = checkCard(card);
      if (!check.ok) {
        metrics.checkouts.inc({ outcome: 'invalid_card' });
        return reply.page('checkout', checkoutPage(order, link.feeBps, { values: card, errors: check.errors }), 422);
      }
      if (check.outcome !== 'approved' && check.outcome !== 'short') {
        metrics.checkouts.inc({ outcome: check.outcome === 'insufficient_funds' ? 'insufficient_funds' : 'declined' });
        const notice = checkout.decline(order, check.outcome);
        return reply.page('checkout', checkoutPage(order, link.feeBps, { values: card, notice }), 402);
      }
      const outcome = check.outcome;
      return deliverAndReturn(reply, order, () => checkout.pay(order, outcome));
    },
  );
};
