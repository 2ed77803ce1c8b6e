import { randomBytes } from 'node:crypto';
import { jsonAnswer, startDocumentedFake } from './documented-fake';
import type { DocumentedFake, FakeRequest } from './documented-fake';
import { madeUpKey } from './made-up-key';
import { stripeQuotesRoute } from './quote-api-fake';

/**
 * A local Stripe: POST /v1/crypto/onramp_sessions as docs.stripe.com documents it (basic auth with
 * the secret key as the user and no password, a form body, Idempotency-Key honoured: a repeated key
 * gets the first answer), answered with a session (cos_ id, hosted onramp redirect_url); and its
 * onramp quotes (quote-api-fake.ts), which Process Payment asks for the order's expected USDC.
 * `source_amount` or `destination_amount`, never both ("Setting source_amount is mutually exclusive
 * with setting destination_amount"), the latter with destination_currency and destination_network
 * ("When set, both destination_currency and destination_network must also be set"); anything else
 * is answered 400 and reported.
 */
export interface StripeFakeRequest extends FakeRequest {
  form: URLSearchParams;
}

export type StripeFake = DocumentedFake<StripeFakeRequest>;

/** Made-up secret keys in Stripe's format, known only to the fake. */
export const STRIPE_FAKE_SECRET = { live: madeUpKey('sk', 'live', '0000000000'), test: madeUpKey('sk', 'test', '0000000000') } as const;

export async function startStripeFake(): Promise<StripeFake> {
  const byKey = new Map<string, string>();
  const error = (status: number, message: string) => jsonAnswer(status, { error: { type: 'invalid_request_error', message } });

  function onrampSession(request: StripeFakeRequest) {
    const [user, password] = Buffer.from(String(request.headers.authorization).replace(/^Basic /, ''), 'base64')
      .toString()
      .split(':');
    if (user !== STRIPE_FAKE_SECRET.test && user !== STRIPE_FAKE_SECRET.live) return error(401, 'Invalid API Key provided');
    if (password !== '') return error(401, 'the secret key is the user, with no password');
    if (request.headers['content-type'] !== 'application/x-www-form-urlencoded') return error(400, 'form-encoded body expected');
    const { form } = request;
    const amounts = ['source_amount', 'destination_amount'].filter((name) => form.has(name));
    if (!fake!.check(amounts.length === 1, `onramp session: ${amounts.join(' and ') || 'no amount'} given, documented one of the two`)) {
      return error(400, 'source_amount and destination_amount are mutually exclusive');
    }
    if (form.has('destination_amount')) {
      const complete = form.has('destination_currency') && form.has('destination_network');
      if (!fake!.check(complete, 'onramp session: destination_amount without destination_currency and destination_network')) {
        return error(400, 'destination_amount needs destination_currency and destination_network');
      }
    }
    const key = String(request.headers['idempotency-key'] ?? '');
    const repeat = byKey.get(key);
    if (repeat) return { status: 200, body: repeat };
    const id = `cos_${randomBytes(12).toString('hex')}`;
    const body = JSON.stringify({
      id,
      object: 'crypto.onramp_session',
      client_secret: `${id}_secret_${randomBytes(8).toString('hex')}`,
      livemode: user === STRIPE_FAKE_SECRET.live,
      metadata: { payment_id: request.form.get('metadata[payment_id]') },
      redirect_url: `https://crypto.link.com?session_hash=${id}`,
      status: 'initialized',
      transaction_details: {
        destination_currency: request.form.get('destination_currency'),
        destination_network: request.form.get('destination_network'),
        lock_wallet_address: request.form.get('lock_wallet_address') === 'true',
        source_amount: request.form.get('source_amount'),
        destination_amount: request.form.get('destination_amount'),
        source_currency: request.form.get('source_currency'),
        wallet_addresses: { polygon: request.form.get('wallet_addresses[polygon]') },
      },
    });
    if (key) byKey.set(key, body);
    return { status: 200, body };
  }

  let fake: StripeFake | undefined;
  const quotes = stripeQuotesRoute<StripeFakeRequest>({
    fake: () => fake as StripeFake,
    credentials: Object.values(STRIPE_FAKE_SECRET),
    feeBps: () => 300,
  });
  fake = await startDocumentedFake<StripeFakeRequest>({
    routes: [{ method: 'POST', path: '/v1/crypto/onramp_sessions', answer: onrampSession }, quotes],
    refusal: error,
    reset: () => byKey.clear(),
    read: (request) => ({ ...request, form: new URLSearchParams(request.body) }),
  });
  return fake;
}
