import { randomUUID } from 'node:crypto';
import { jsonAnswer, sentAsJson, startDocumentedFake } from './documented-fake';
import type { DocumentedFake, FakeAnswer, FakeRequest } from './documented-fake';

/**
 * A local Wert partner API: POST /api/external/hpp/create-session (docs.wert.io/docs/fiat-onramp:
 * X-Api-Key, JSON, the simple_full_restrict fields required) answering `{sessionId, requestId}`, and
 * GET /api/external/orders (docs.wert.io/docs/data-api: X-API-KEY, search_by an order or click id)
 * answering `{success, data, total}`. Orders appear as Wert would make them once a customer pays
 * (`addOrder`). Wert's error body is not documented: `{"message"}` here.
 */
export interface WertFake extends DocumentedFake {
  apiKey: string;
  addOrder(order: Record<string, unknown>): void;
}

const RESTRICTED_FIELDS = ['commodity', 'network', 'wallet_address', 'currency'] as const;

export async function startWertFake(apiKey = 'wert-sbox-4f7a1c9e2b6d4e8a9c3f0d5e7b1a'): Promise<WertFake> {
  const orders: Record<string, unknown>[] = [];
  const error = (status: number, message: string) => jsonAnswer(status, { message });
  const unauthorized = (request: FakeRequest) => request.headers['x-api-key'] !== apiKey;

  function createSession(request: FakeRequest): FakeAnswer {
    if (unauthorized(request)) return error(401, 'Unauthorized');
    if (!sentAsJson(request)) return error(400, 'a JSON body is expected');
    const body = fake.jsonBody(request);
    if (!body) return error(400, 'body is not JSON');
    if (body.flow_type !== 'simple' && body.flow_type !== 'simple_full_restrict') return error(400, 'flow_type is required');
    if (body.flow_type === 'simple_full_restrict') {
      const missing = RESTRICTED_FIELDS.filter((field) => typeof body[field] !== 'string');
      if (missing.length > 0) return error(400, `${missing.join(', ')} required on simple_full_restrict`);
      if (typeof body.currency_amount !== 'number' && typeof body.commodity_amount !== 'number') {
        return error(400, 'currency_amount or commodity_amount required on simple_full_restrict');
      }
    }
    return jsonAnswer(200, { sessionId: randomUUID(), requestId: randomUUID() });
  }

  const fake = await startDocumentedFake({
    routes: [
      { method: 'POST', path: '/api/external/hpp/create-session', answer: createSession },
      {
        method: 'GET',
        path: '/api/external/orders',
        answer: (request) => {
          if (unauthorized(request)) return error(401, 'Unauthorized');
          const search = new URL(request.path, 'http://fake').searchParams.get('search_by');
          const found = orders.filter((order) => search === null || order.order_id === search || order.click_id === search);
          return jsonAnswer(200, { success: true, data: found.slice(0, 10), total: found.length });
        },
      },
    ],
    refusal: error,
    reset: () => {
      orders.length = 0;
    },
  });
  return Object.assign(fake, { apiKey, addOrder: (order: Record<string, unknown>) => void orders.push(order) });
}
