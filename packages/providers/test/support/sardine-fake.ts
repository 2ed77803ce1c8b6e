import { randomUUID } from 'node:crypto';
import { basicAuthorization, jsonAnswer, sentAsJson, startDocumentedFake } from './documented-fake';
import type { DocumentedFake, FakeAnswer, FakeRequest } from './documented-fake';

/**
 * A local Sardine API: POST /v1/auth/client-tokens (docs.payments.sardine.ai, Get Client Token:
 * basic auth clientId:clientSecret, a JSON body whose referenceId is new on each call) answering
 * `{clientToken, expiresAt}` (30 minutes on), and GET /v1/orders?referenceId=… (Get Order(s))
 * answering the orders with that referenceId as a list. Orders appear as Sardine would make them
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
