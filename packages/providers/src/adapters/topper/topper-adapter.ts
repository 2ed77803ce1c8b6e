import { Type } from '@sinclair/typebox';
import { ASSUMED_CARD_FEES } from '../../support/assumed-card-fees';
import type { JWK } from 'jose';
import { defineProvider, ProviderWebhookError, type CheckoutOrder, type AdapterDescriptor } from '../../provider-contract';
import { importEs256PrivateKey, importPublicJwk, signEs256Jwt, verifyDetachedJws, type SigningKey } from '../../support/jose-tokens';
import { singleHeader } from '../../support/signing';
import { jsonAcknowledgement } from '../../support/webhook-acknowledgement';
import { providerAdapter } from '../../support/provider-adapter';
import { topperWebhookEvent } from './topper-webhook';
import { ASSUMED_TIME_TO_USDC, cardOnly, countriesNotFound } from '../../support/choice-facts';

/**
 * Topper (by Uphold): a URL carrying a bootstrap token we sign, `https://app.topperpay.com/?bt=<JWT>`.
 * Docs: GitHub uphold/topper-docs @b227e60 (published at docs.topperpay.com).
 * - Bootstrap token (docs/widgets.md): a JWT signed with our widget key, header typ JWT, alg, kid
 *   (the key id Topper assigned to our public key); claims iat (seconds), jti (unique id of the
 *   session, echoed in webhooks as `bootstrapTokenId`), sub (widget id). Valid 3 minutes after iat,
 *   usable once. Hosts (docs/environments.md): app.topperpay.com, app.sandbox.topperpay.com.
 * - On-ramp payload (docs/flows/crypto-onramp.mdx): source {amount, asset (ISO 4217),
 *   paymentMethod {network: card}}, target {address, asset, network, recipientEditMode},
 *   partner {continueUrl}. Exactly one of source.amount and target.amount.
 * - Webhooks (docs/webhooks.mdx): header `X-Topper-JWS-Signature`, a JWS with detached payload
 *   (RFC 7515 appendix F) over the raw body, verified with the public JWK Topper gives per webhook
 *   URL. Topper retries on 408, 409, 429 and 5xx, up to 10 times over about 3 hours; any 2xx ends it.
 *
 * Choices where the docs are open:
 * - target asset `USDC` on network `polygon`: the docs send us to GET
 *   https://api.topperpay.com/assets/crypto-onramp for the codes and give only `ethereum` and
 *   `arbitrum` as examples (lower-case network names, as Uphold names networks). Check both codes
 *   there, and that the asset is Circle's USDC 0x3c49…3359, before going live.
 * - jti is our payment id: one token per checkout call, and Topper's webhooks then name the payment
 *   directly. A second call for the same payment signs a new token (another iat) with the same jti;
 *   the docs refuse a reused token, not a reused jti.
 * - exp = iat + 180 s, Topper's documented validity, so the token states its own limit.
 * - recipientEditMode `not-editable` (also Topper's default): the customer cannot change asset,
 *   network or address. No label: Topper then shows the widget's name.
 * - Not sent: the e-mail (the on-ramp payload has no field for it) and partner.validation.device.ip
 *   (the customer's IP as our host sees it may differ from what Topper sees, which fails the session).
 * - No webhook freshness check: the JWS header carries no time, and a retried delivery keeps its
 *   body (data.updatedAt included) for up to 3 hours. A replayed event can only restate a status
 *   Topper did send; `paid` is final in the gateway, and the chain decides about money.
 * - No quote(): searched Topper's docs (uphold/topper-docs) for a quote or price API: none found;
 *   its rows show the estimate.
 */

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const settings = Type.Object({
  WIDGET_ID: Type.String({
    pattern: UUID,
    description: 'widget id Topper assigned at onboarding (differs between sandbox and production); the bootstrap token subject',
  }),
  KEY_ID: Type.String({
    pattern: UUID,
    description: 'key id Topper assigned to our registered public signing key; the bootstrap token kid',
  }),
  PRIVATE_KEY: Type.String({
    minLength: 64,
    description: 'ES256 (P-256) private signing key of the widget, PEM PKCS#8 or a private JWK in JSON',
  }),
  WEBHOOK_PUBLIC_KEY: Type.String({
    pattern: '^\\s*\\{[\\s\\S]*\\}\\s*$',
    description: 'public JWK (JSON) Topper gives for our webhook URL; verifies X-Topper-JWS-Signature',
  }),
});

export const TOPPER_SIGNATURE_HEADER = 'x-topper-jws-signature';
/** Topper refuses a bootstrap token 3 minutes after its iat. */
export const TOPPER_BOOTSTRAP_LIFETIME_SECONDS = 180;
/** The algorithms Topper names for its keys; the webhook JWK's own `alg` picks one. */
const WEBHOOK_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512'];

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://app.topperpay.com', test: 'https://app.sandbox.topperpay.com' },
  docs: 'https://docs.topperpay.com/flows/crypto-onramp',
  id: 'topper',
  displayName: 'Topper',
  currency: 'any',
  minimum: '10',
  minimumCurrency: 'USD',
  // Not published by the provider: assumed range. Searched "Topper fees": no figure found.
  fees: { ...ASSUMED_CARD_FEES, source: 'https://docs.topperpay.com/flows/crypto-onramp' },
  methods: cardOnly('https://docs.topperpay.com/flows/crypto-onramp'),
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  countries: countriesNotFound("no list of Topper's served countries was found"),
  flow: 'signed-url',
  webhook: 'ES256 detached JWS, X-Topper-JWS-Signature',
  delivers: 'native',
  settings,
};

export const topper = defineProvider({
  descriptor,
  async create(values, context) {
    const host = descriptor.hosts[context.mode];
    // Imported at boot so a malformed key stops the boot instead of the first checkout.
    const signingKey = await importSigningKey(values.PRIVATE_KEY);
    const webhook = await importWebhookKey(values.WEBHOOK_PUBLIC_KEY);
    return providerAdapter(descriptor, context, {
      async createCheckout(order) {
        const issuedAt = Math.floor(context.now() / 1000);
        const token = await topperBootstrapToken(order, signingKey, { widgetId: values.WIDGET_ID, keyId: values.KEY_ID, issuedAt });
        const url = new URL(host);
        url.searchParams.set('bt', token);
        // The token's own limit: usable once, until its exp.
        return { kind: 'redirect', url: url.toString(), expiresAt: (issuedAt + TOPPER_BOOTSTRAP_LIFETIME_SECONDS) * 1000, singleUse: true };
      },
      async verifyWebhook(rawBody, headers) {
        const jws = singleHeader(headers, TOPPER_SIGNATURE_HEADER);
        if (!jws) throw new ProviderWebhookError(`missing ${TOPPER_SIGNATURE_HEADER}`);
        if (!(await verifyDetachedJws(jws, rawBody, webhook.key, [webhook.algorithm]))) {
          throw new ProviderWebhookError(`${TOPPER_SIGNATURE_HEADER} does not match the body`);
        }
        return { ...topperWebhookEvent(rawBody), acknowledgement: jsonAcknowledgement({ received: true }) };
      },
    });
  },
});

export interface BootstrapTokenIdentity {
  widgetId: string;
  keyId: string;
  /** Unix seconds. */
  issuedAt: number;
}

/** The on-ramp bootstrap token of one checkout: card, the order's fiat amount, USDC on Polygon to the wallet. */
export function topperBootstrapToken(order: CheckoutOrder, key: SigningKey, identity: BootstrapTokenIdentity): Promise<string> {
  return signEs256Jwt(
    {
      source: { amount: order.amount, asset: order.currency, paymentMethod: { network: 'card' } },
      target: { address: order.walletAddress, asset: 'USDC', network: 'polygon', recipientEditMode: 'not-editable' },
      partner: { continueUrl: order.returnUrl },
    },
    key,
    {
      keyId: identity.keyId,
      issuedAt: identity.issuedAt,
      lifetimeSeconds: TOPPER_BOOTSTRAP_LIFETIME_SECONDS,
      jwtId: order.paymentId,
      subject: identity.widgetId,
    },
  );
}

async function importSigningKey(text: string): Promise<SigningKey> {
  try {
    return await importEs256PrivateKey(text);
  } catch (error) {
    throw new Error(`PRIVATE_KEY is not an ES256 (P-256) private key in PEM PKCS#8 or JWK form: ${(error as Error).message}`);
  }
}

async function importWebhookKey(text: string): Promise<{ key: SigningKey; algorithm: string }> {
  let jwk: JWK;
  try {
    jwk = JSON.parse(text) as JWK;
  } catch {
    throw new Error('WEBHOOK_PUBLIC_KEY is not JSON (Topper gives it as a JWK)');
  }
  if ('d' in jwk) throw new Error('WEBHOOK_PUBLIC_KEY holds a private key; Topper gives a public JWK');
  const algorithm = jwk.alg ?? 'ES256';
  if (!WEBHOOK_ALGORITHMS.includes(algorithm)) throw new Error(`WEBHOOK_PUBLIC_KEY alg ${algorithm} is not one Topper signs with`);
  try {
    return { key: await importPublicJwk(text, algorithm), algorithm };
  } catch (error) {
    throw new Error(`WEBHOOK_PUBLIC_KEY is not a usable ${algorithm} public JWK: ${(error as Error).message}`);
  }
}
