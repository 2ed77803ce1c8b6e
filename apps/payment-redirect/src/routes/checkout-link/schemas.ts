import { Type } from '@sinclair/typebox';

export const checkoutLinkQuery = Type.Object({
  key: Type.Optional(
    Type.String({ maxLength: 100, description: "the payment's key, in the checkout_link Process Payment gave a JSON client" }),
  ),
});
