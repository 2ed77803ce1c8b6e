import { Type } from '@sinclair/typebox';
import { SUPPORTED_CURRENCIES } from '@gateway/domain';

/**
 * The hosted checkout's query, for OpenAPI and types. The route attaches validation failures
 * instead of answering JSON: a customer follows this link in a browser, so every bad link gets an
 * HTML page that names the parameter (parseCheckoutLink in packages/domain parses the raw query, the one
 * authority on what is valid). Branding parameters that are not valid are ignored, never an error.
 */
export const hostedCheckoutQuery = Type.Object({
  address: Type.String({ description: 'the address_in returned by Create Wallet, URL-encoded (not a 0x wallet address)' }),
  amount: Type.String({ description: 'the order total in `currency`: a positive decimal with a dot and at most 2 decimals, e.g. 49.99' }),
  email: Type.String({ description: "the customer's e-mail address, URL-encoded" }),
  currency: Type.String({
    description:
      `ISO 4217 code of the order, one of ${SUPPORTED_CURRENCIES.join(', ')}; ` +
      'USD-only providers are offered the amount converted to USD',
  }),
  domain: Type.Optional(
    Type.String({ description: 'optional: the shop name shown on the page (plain text, at most 60 characters shown)' }),
  ),
  logo: Type.Optional(Type.String({ description: 'optional: an https URL of the shop logo; any other scheme is ignored' })),
  background: Type.Optional(
    Type.String({ description: 'optional: page background colour, hex #rgb or #rrggbb (URL-encoded as %23…); anything else is ignored' }),
  ),
  theme: Type.Optional(
    Type.String({
      description:
        "optional: light (default) or dark; or the shop's theme colour (#rrggbb, #rgb or rrggbb, as the WooCommerce plugin sends it), " +
        'used as the accent when button is not given; anything else is ignored',
    }),
  ),
  button: Type.Optional(
    Type.String({ description: 'optional: button colour, hex #rgb or #rrggbb (URL-encoded as %23…); anything else is ignored' }),
  ),
});
