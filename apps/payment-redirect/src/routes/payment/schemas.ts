import { Type } from '@sinclair/typebox';

export const processPaymentQuery = Type.Object({
  address: Type.String({ description: 'the address_in returned by Create Wallet, URL-encoded (not a 0x wallet address)' }),
  amount: Type.String({ description: 'amount the customer pays: a positive decimal with a dot and at most 2 decimals, e.g. 49.99' }),
  provider: Type.String({
    description:
      'provider id, e.g. moonpay: one this gateway offers (the hosted checkout, pay.php, lists them); an id it knows but does not offer gets 400 provider_not_offered',
  }),
  email: Type.String({ description: "the customer's e-mail address, URL-encoded" }),
  currency: Type.String({ description: 'ISO 4217 code such as USD, EUR or CAD; some providers take one currency only' }),
});

export const checkoutCreated = Type.Object(
  {
    status: Type.Literal('success'),
    payment_id: Type.String(),
    provider: Type.String(),
    checkout_url: Type.String({ description: 'open this as a top-level redirect, never in a frame' }),
  },
  { description: 'returned instead of the redirect when the client sends Accept: application/json' },
);

export const errorBody = Type.Object({
  status: Type.Literal('error'),
  code: Type.String(),
  error: Type.String(),
  param: Type.Optional(Type.String()),
});
