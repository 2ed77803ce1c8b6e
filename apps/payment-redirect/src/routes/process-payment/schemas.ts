import { Type } from '@sinclair/typebox';

export const processPaymentQuery = Type.Object({
  address: Type.String({ description: 'the address_in returned by Create Wallet, URL-encoded (not a 0x wallet address)' }),
  amount: Type.String({ description: 'amount the customer pays: a positive decimal with a dot and at most 2 decimals, e.g. 49.99' }),
  provider: Type.String({
    description:
      'provider id, e.g. moonpay: one this gateway offers (the hosted checkout, pay.php, lists them); an id it knows but does not offer ' +
      'gets 400 provider_not_offered',
  }),
  email: Type.String({ description: "the customer's e-mail address, URL-encoded" }),
  currency: Type.String({ description: 'ISO 4217 code such as USD, EUR or CAD; some providers take one currency only' }),
});

export const checkoutCreated = Type.Object(
  {
    status: Type.Literal('success'),
    payment_id: Type.String(),
    provider: Type.String(),
    checkout_url: Type.String({
      description:
        "open this as a top-level redirect, never in a frame; for a provider whose checkout is a form, the customer's link (checkout_link)",
    }),
    checkout_expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description:
        'until when checkout_url is good (ISO 8601, UTC); null when it does not expire. Some providers accept it once: send the customer ' +
        'to checkout_link instead when in doubt',
    }),
    checkout_link: Type.String({
      description:
        "the customer's link to this payment's checkout: reuses a live one, opens a fresh one once checkout_url has expired or was used. " +
        "It carries the payment's key (key=…): give it to this customer alone; opening it lets the browser take the receipt's second chance",
    }),
  },
  { description: 'returned instead of the redirect when the client sends Accept: application/json' },
);
