import { Type, type TSchema } from '@sinclair/typebox';
import { errorBodySchema } from '@gateway/http';

export const createWalletQuery = Type.Object({
  address: Type.String({
    description: 'your payout wallet for USDC on Polygon: 0x followed by 40 hex characters (EIP-55 checksum if mixed case)',
    examples: ['0x52908400098527886E0F7030069857D2E4169EE7'],
  }),
  callback: Type.String({
    description:
      'absolute http(s) URL that receives the payment notice by GET, percent-encoded; no spaces or control characters, no port 0, ' +
      'and an IP-literal host must be a public unicast address (the callback-worker calls nothing else); add a parameter with a ' +
      'unique value (e.g. the order id) to get a new wallet',
    examples: ['https://shop.io/ipn?order_id=1234'],
  }),
  order_tolerance_bps: Type.Optional(
    Type.String({
      description:
        "optional: how far (basis points, 0 to 5000) the USDC of this wallet's order may differ from what it should bring and the " +
        "order still be paid; it narrows the operator's tolerance, never widens it. Fixed with the wallet: a repeat of the same pair " +
        'returns the wallet as first created',
      examples: ['50'],
    }),
  ),
  customer_pays_fee: Type.Optional(
    Type.String({
      description:
        "optional: 1, the customer pays the provider's fees on top, so the shop receives the order's full value (after the " +
        "gateway's fee), where the provider can sell a fixed amount of USDC (providers.md); 0, the fees stay inside the order " +
        "amount; not given, the operator's CUSTOMER_PAYS_FEES decides. Fixed with the wallet: a repeat of the same pair returns " +
        'the wallet as first created',
      examples: ['1'],
    }),
  ),
});

export const walletControlData = Type.Object(
  {
    address_in: Type.String({
      description:
        'sealed temporary wallet address; the only form Process Payment accepts (a repeat answers it sealed with the current key)',
    }),
    polygon_address_in: Type.String({ description: 'plain temporary wallet address, for watching deposits only' }),
    callback_url: Type.String({ description: 'the callback URL, decoded' }),
    ipn_token: Type.String({
      description:
        'tracking token to quote to support; it also reads payment-status.php, so keep it private (answers carry Cache-Control: no-store)',
    }),
  },
  { description: 'temporary wallet control data' },
);

/**
 * The options of a route that creates a wallet (wallet.php, affiliate.php, custom-affiliate.php):
 * HEAD must not run it (405, Allow: GET), unlike Fastify's default HEAD for every GET.
 */
export function createWalletRoute<Query extends TSchema>({
  summary,
  description,
  querystring,
}: {
  summary: string;
  description: string;
  querystring: Query;
}) {
  return {
    exposeHeadRoute: false,
    schema: {
      summary,
      description,
      tags: ['wallet'],
      querystring,
      response: { 200: walletControlData, 400: errorBodySchema, 403: errorBodySchema, 409: errorBodySchema, 429: errorBodySchema },
    },
  };
}
