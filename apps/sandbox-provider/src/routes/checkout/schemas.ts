import { Type } from '@sinclair/typebox';

// Every field optional and a plain string: what is missing, repeated (an array) or oversized is
// a link problem the handler answers with a page, not a JSON validation error.
const text = (maxLength: number, description: string) => Type.Optional(Type.String({ maxLength, description }));

const linkFields = {
  payment: text(64, 'gateway payment id (the order id)'),
  provider: text(32, 'the provider this checkout stands in for'),
  address: text(64, 'temporary wallet that receives the USDC'),
  amount: text(32, 'fiat amount, two decimals'),
  currency: text(8, 'ISO 4217 currency code'),
  email: text(320, "the customer's e-mail"),
  return_url: text(2048, "the gateway's receipt page for this payment"),
  expires: text(16, 'unix time after which the link is refused'),
  sig: text(128, "the gateway's HMAC over the fields above"),
};

export const checkoutQuery = Type.Object(linkFields);

export const checkoutForm = Type.Object({
  ...linkFields,
  name: text(200, 'name on card'),
  number: text(64, 'card number'),
  expiry: text(16, 'expiry, MM/YY'),
  cvc: text(16, 'security code'),
});
