import { randomUUID } from 'node:crypto';
import { basicAuthorization, jsonAnswer, sentAsJson, startDocumentedFake } from './documented-fake';
import type { DocumentedFake, FakeAnswer, FakeRequest } from './documented-fake';

/**
 * A local Sardine API: POST /v1/auth/client-tokens (docs.payments.sardine.ai, Get Client Token:
 * basic auth clientId:clientSecret, a JSON body whose referenceId is new on each call) answering
 * `{clientToken, expiresAt}` (30 minutes on), and GET /v1/orders?referenceId=… (Get Order(s))
 * answering the orders with that referenceId as a list, and GET /v1/quotes (Get Quote: the
 * documented query only, answering the example's JSON numbers). Orders appear as Sardine would make them
 * once a customer pays (`addOrder`). Sardine's error body is not documented: `{"message"}` here.
 * `widgetProblems` reads a checkout URL as the widget would: a token it issued, and the chain and
 * asset locked (`fixed_network`, `fixed_asset_type`: without them the customer may switch either).
 */
export interface SardineFake extends DocumentedFake {
  clientId: string;
  clientSecret: string;
  addOrder(order: Record<string, unknown>): void;
  /** What is wrong with a widget URL, in words; empty when the widget would open it locked to our order. */
  widgetProblems(url: string): string[];
}

export const SARDINE_FAKE_CLIENT = { id: '16744ddc-a8a3-48b2-a8e9-606ae8995539', secret: 'f20ba4db-73c2-4942-8402-da77899e7662' };

/** Get Quote's query parameters and the values the reference allows (walletAddress: an EVM address here). */
const QUOTE_QUERY: Record<string, RegExp> = {
  asset_type: /^[A-Za-z0-9]{2,12}$/,
  network: /^[a-z0-9_-]{2,32}$/,
  total: /^\d{1,12}(\.\d+)?$/,
  currency: /^[A-Z]{3}$/,
  paymentType: /^(ach|debit|credit|us_debit|international_debit|international_credit)$/,
  quote_type: /^(buy|sell)$/,
  walletAddress: /^0x[0-9a-fA-F]{40}$/,
};
const QUOTE_REQUIRED = ['asset_type', 'network', 'total'];
/** The fake's price of 1 USDC, in cents of each currency it quotes. */
const USDC_PRICE_CENTS: Record<string, bigint> = { USD: 100n, EUR: 92n, GBP: 80n };

/** Units of 10^-places as a JSON number's text, trailing zeros dropped (100, 97.49, 0.0445225). */
function numberText(units: bigint, places: number): string {
  const text = units.toString().padStart(places + 1, '0');
  const fraction = text.slice(-places).replace(/0+$/, '');
  return fraction ? `${text.slice(0, -places)}.${fraction}` : text.slice(0, -places);
}

export async function startSardineFake(now: () => number = Date.now): Promise<SardineFake> {
  const orders: Record<string, unknown>[] = [];
  const references = new Set<string>();
  const tokens = new Set<string>();
  const error = (status: number, message: string) => jsonAnswer(status, { message });
  const unauthorized = (request: FakeRequest) =>
    request.headers.authorization !== basicAuthorization(SARDINE_FAKE_CLIENT.id, SARDINE_FAKE_CLIENT.secret);

  function clientToken(request: FakeRequest): FakeAnswer {
    if (unauthorized(request)) return error(401, 'Unauthorized');
    if (!sentAsJson(request)) return error(400, 'a JSON body is expected');
    const reference = fake.jsonBody(request)?.referenceId;
    if (typeof reference !== 'string' || reference === '') return error(400, 'referenceId is required');
    // "Unique id representing a new session, must be regenerated for each call".
    if (references.has(reference)) return error(400, 'referenceId already used');
    references.add(reference);
    const token = randomUUID();
    tokens.add(token);
    return jsonAnswer(200, { clientToken: token, expiresAt: new Date(now() + 30 * 60_000).toISOString() });
  }

  /**
   * Get Quote: the documented parameters only, each once, the required ones present; this Sardine
   * sells USDC on polygon (anything else is a problem of the caller). 2.5 % processing and 0.01
   * network fee come out of `total`; `quantity` is the subtotal at the fake's USDC price, written
   * with 8 decimals at most. The reference types `subtotal` and the fees `integer`, yet they are
   * money: written with cents here.
   */
  function quote(request: FakeRequest): FakeAnswer {
    if (unauthorized(request)) return error(401, 'Unauthorized');
    const query = new URL(request.path, 'http://fake').searchParams;
    const checked = [...new Set([...query.keys(), ...QUOTE_REQUIRED])].map((name) => {
      const pattern = QUOTE_QUERY[name];
      const values = query.getAll(name);
      return fake.check(
        pattern !== undefined && values.length === 1 && pattern.test(values[0] as string),
        `quote: ${name} is ${JSON.stringify(values)}`,
      );
    });
    if (!checked.every(Boolean)) return error(400, 'invalid quote request');
    const sold = fake.check(
      query.get('asset_type') === 'USDC' && query.get('network') === 'polygon' && query.get('quote_type') !== 'sell',
      'quote: not a buy of USDC on polygon',
    );
    const price = USDC_PRICE_CENTS[query.get('currency') ?? 'USD'];
    if (!sold || price === undefined) return error(400, 'no quote for this asset, network or currency');
    const [whole = '0', fraction = ''] = (query.get('total') as string).split('.');
    const totalCents = BigInt(whole + fraction.padEnd(2, '0').slice(0, 2));
    const transactionCents = (totalCents * 250n) / 10_000n;
    const networkCents = 1n;
    const subtotalCents = totalCents - transactionCents - networkCents;
    if (subtotalCents <= 0n) return error(400, 'total is too low');
    // Written as text so no binary float rounds the figures.
    const body =
      `{"quantity":${numberText((subtotalCents * 10n ** 8n) / price, 8)},"price":${numberText(price, 2)},` +
      `"subtotal":${numberText(subtotalCents, 2)},"transactionFee":${numberText(transactionCents, 2)},` +
      `"networkFee":${numberText(networkCents, 2)},"total":${numberText(totalCents, 2)},"assetType":"USDC","network":"polygon"}`;
    return { status: 200, body };
  }

  function widgetProblems(text: string): string[] {
    const url = new URL(text);
    const param = (name: string) => url.searchParams.get(name);
    const problems: string[] = [];
    if (!tokens.has(param('client_token') ?? '')) problems.push('client_token is not a token this Sardine issued');
    if (!/^0x[0-9a-fA-F]{40}$/.test(param('address') ?? '')) problems.push('no address');
    for (const [value, lock] of [
      ['network', 'fixed_network'],
      ['asset_type', 'fixed_asset_type'],
    ] as const) {
      if (param(lock) === null) problems.push(`${lock} missing: the customer may change ${value}`);
      else if (param(lock) !== param(value)) problems.push(`${lock} is not ${value}`);
    }
    return problems;
  }

  const fake = await startDocumentedFake({
    routes: [
      { method: 'POST', path: '/v1/auth/client-tokens', answer: clientToken },
      { method: 'GET', path: '/v1/quotes', answer: quote },
      {
        method: 'GET',
        path: '/v1/orders',
        answer: (request) => {
          if (unauthorized(request)) return error(401, 'Unauthorized');
          const reference = new URL(request.path, 'http://fake').searchParams.get('referenceId');
          return jsonAnswer(
            200,
            orders.filter((order) => reference === null || order.referenceId === reference),
          );
        },
      },
    ],
    refusal: error,
    reset: () => {
      orders.length = 0;
      references.clear();
      tokens.clear();
    },
  });
  return Object.assign(fake, {
    clientId: SARDINE_FAKE_CLIENT.id,
    clientSecret: SARDINE_FAKE_CLIENT.secret,
    addOrder: (order: Record<string, unknown>) => void orders.push(order),
    widgetProblems,
  });
}
