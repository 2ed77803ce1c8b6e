import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { recordOutcome } from '@gateway/http';
import { crossSiteRequestError, isUuid, paymentKeyRequiredError, postOrigin, type CustomerLocation } from '@gateway/domain';
import { sendCheckoutFailed, sendCheckoutFailedPage } from '../shared/checkout-failed-page';
import { cookieKeys, givePaymentKey, sendPaymentRefused } from '../shared/payment-key-cookie';
import { paymentPageSchema } from '../shared/schemas';
import type { PaymentCredentials, SecondChanceOutcome } from '../../services/checkout/second-chance-service';
import { continueView, refusedView, type NewAttempt } from './view-model';

// A second-chance form carries two short fields.
const FORM_BODY_LIMIT = 1024;

/** What a receipt's form asks for: a new attempt on the same wallet, started by the holder of the payment's key. */
type TakeAttempt = (
  paymentId: string,
  provider: string,
  customerIp: string,
  credentials: PaymentCredentials,
  location: CustomerLocation | undefined,
) => Promise<SecondChanceOutcome>;

/**
 * The second chance and the rest: the receipt's forms post here (a payment the provider gave up
 * on, paid with another provider; the rest of an underpaid order), and the browser goes on to the
 * new payment's checkout through this host.
 */
export const secondChanceRoutes: FastifyPluginAsyncTypebox<{ publicUrl: string }> = async (app, { publicUrl }) => {
  const ownOrigin = new URL(publicUrl).origin;
  // The receipt's forms post `provider=<id>&form_token=…` (HTML forms, no JavaScript needed).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );

  /** A form's post, the same for both: checked for its origin and key, then a 303 on to the new payment's checkout. */
  const taken =
    (what: NewAttempt, take: TakeAttempt) => async (request: FastifyRequest<{ Params: { paymentId: string } }>, reply: FastifyReply) => {
      reply.header('cache-control', 'no-store');
      const { paymentId } = request.params;
      if (!isUuid(paymentId)) return reply.page('not-found', {}, 404);
      const origin = postOrigin(
        { origin: header(request.headers.origin), secFetchSite: header(request.headers['sec-fetch-site']) },
        ownOrigin,
      );
      if (origin === 'cross_site') return sendPaymentRefused(request, reply, crossSiteRequestError(), paymentId.toLowerCase());
      const body = request.body as Record<string, unknown> | undefined;
      const provider = typeof body?.provider === 'string' ? body.provider.trim().toLowerCase() : '';
      const formToken = typeof body?.form_token === 'string' ? body.form_token : undefined;
      const credentials = { keys: cookieKeys(request), ...(formToken === undefined ? {} : { formToken }) };
      const location = app.checkoutPorts.customerLocation?.(request.headers);
      const outcome = await take(paymentId.toLowerCase(), provider, request.ip, credentials, location);
      const receipt = `/payment/${paymentId.toLowerCase()}`;
      if (outcome.kind === 'checkout_failed') {
        return sendCheckoutFailed(request, reply, outcome.failure, {
          intro: `${outcome.failure.providerName} did not open a checkout for this order. Choose another provider on your receipt.`,
          chooseHref: receipt,
        });
      }
      if (outcome.kind === 'refused') {
        const { refusal } = outcome;
        if (refusal === 'no_payment') return reply.page('not-found', {}, 404);
        if (refusal === 'key_required') return sendPaymentRefused(request, reply, paymentKeyRequiredError(), paymentId.toLowerCase());
        recordOutcome(request, `${what} refused`, { paymentId, refusal });
        const name = app.providers.describe(provider)?.displayName;
        return sendCheckoutFailedPage(reply, refusedView(what, refusal, name, receipt), refusal === 'provider_not_accepted' ? 400 : 409);
      }
      const started = outcome.payment;
      recordOutcome(request, `${what} taken`, { paymentId, retryPaymentId: started.paymentId, provider: started.provider });
      givePaymentKey(reply, publicUrl, started.paymentId, started.key);
      // A GET page on this host, not the link itself: browsers hold a form's redirects to form-action
      // ('self'), so a redirect on to the provider would be blocked. A reload never posts again.
      return reply.redirect(`/payment/${started.paymentId}/continue`, 303);
    };

  app.post(
    '/payment/:paymentId/retry',
    {
      schema: paymentPageSchema(
        'Second chance: pay the same order with another provider',
        "The receipt page's form (fields provider=<id> and form_token). Only from the gateway's own pages (Origin and " +
          'Sec-Fetch-Site, when sent, must say so: else 403 cross_site_request) and with the payment key (its cookie, and the ' +
          "form's token derived from it: else 403 payment_key_required). When the payment's provider declined or failed it and no USDC arrived, " +
          'records a new payment for the same temporary wallet, amount, currency and e-mail with that provider, exactly as Process ' +
          'Payment does, and sends the browser on to its checkout (303 to /payment/<new id>/continue, which goes on to the new ' +
          "payment's link). 400 for a provider that does not accept the order, 409 when the second chance is not open (USDC " +
          'arrived, or the provider has not given up) and when the payment has had SECOND_CHANCES_MAX second chances or the order ' +
          'ORDER_ATTEMPTS_MAX attempts, 404 for no such payment.',
      ),
    },
    taken('second chance', (...args) => app.secondChanceService.take(...args)),
  );

  app.post(
    '/payment/:paymentId/rest',
    {
      schema: paymentPageSchema(
        'Pay the rest of an underpaid order',
        "The receipt page's rest form (fields provider=<id> and form_token), under the same checks as the second chance " +
          '(Origin and Sec-Fetch-Site: else 403 cross_site_request; the payment key: else 403 payment_key_required). When the ' +
          "payment's order is underpaid, records a new payment into the same temporary wallet, with the same e-mail, for the rest " +
          "with that provider: what is missing, grossed up by the provider's largest documented fee, in the order's currency at " +
          "its recorded rate, rounded up to the cent. The new payment records the order's expectation (the order is judged whole) " +
          'and a window of its own. 303 to /payment/<new id>/continue. 400 for a provider whose rules do not take the rest, 409 ' +
          'when the order is not underpaid, and when the payment has had SECOND_CHANCES_MAX second chances (a rest counts as one) ' +
          'or the order ORDER_ATTEMPTS_MAX attempts, 404 for no such payment.',
      ),
    },
    // A rest is judged by its order's expectation: no quote, so no location, is asked for it.
    taken('rest', (paymentId, provider, ip, credentials) => app.restService.take(paymentId, provider, ip, credentials)),
  );

  app.get(
    '/payment/:paymentId/continue',
    {
      schema: paymentPageSchema(
        'Second chance: on to the chosen provider',
        "Where the second-chance form lands: a page that goes on to the payment's link (/payment/<id>/checkout) at once (a meta " +
          "refresh, and a button), since the form's own redirects may not leave this host (form-action 'self').",
      ),
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const continuation = await app.secondChanceService.continuation(request.params.paymentId);
      if (continuation.kind === 'not_found') return reply.page('not-found', {}, 404);
      return reply.page('checkout-continue', continueView(continuation));
    },
  );
};

/** A header as one string: a repeated one (an array) is not what a browser sends, so it counts as foreign. */
function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? 'repeated' : value;
}
