import { MockAgent } from 'undici';
import { createProviderHttpClient } from '../../support/provider-http-client';
import { NO_TOKENS } from '../../../test/support/adapter-contract';
import { MOONPAY_KEYS } from '../../../test/support/moonpay-account';
import { moonpay } from './moonpay-adapter';

const { live } = MOONPAY_KEYS;
const API_ORIGIN = 'https://api.moonpay.com';
const paymentId = '3f1c1c2e-8d7a-4f0e-9a51-6c1d2b3a4e5f';
/** "Get Buy transaction by external identifier" (dev.moonpay.com/v1.0/reference/getbuytransactionbyexternalid). */
const LOOKUP_PATH = `/v1/transactions/ext/${paymentId}`;

function transaction(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    id: 'defb7c52-7bd3-422b-9052-374df50cc51a',
    createdAt: '2026-11-27T10:00:00.000Z',
    baseCurrencyAmount: 25,
    paymentMethod: 'credit_debit_card',
    status: 'pending',
    failureReason: null,
    walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
    externalTransactionId: paymentId,
    ...fields,
  };
}

const agents: MockAgent[] = [];
afterAll(async () => {
  await Promise.all(agents.map(async (agent) => agent.close()));
});

/** MoonPay's API behind undici's MockAgent: only the documented path answers; what it was asked is kept. */
async function lookUp(statusCode: number, body: string) {
  const requests: URL[] = [];
  const agent = new MockAgent();
  agent.disableNetConnect();
  agents.push(agent);
  agent
    .get(API_ORIGIN)
    .intercept({ path: (path) => path.startsWith(`${LOOKUP_PATH}?`), method: 'GET' })
    .reply((request) => {
      requests.push(new URL(request.path, API_ORIGIN));
      return { statusCode, data: body, responseOptions: { headers: { 'content-type': 'application/json' } } };
    })
    .persist();
  const adapter = await moonpay.create(live, {
    mode: 'live',
    webhookUrl: 'https://pay.example.org/webhooks/moonpay',
    http: createProviderHttpClient({ dispatcher: agent, maxAttempts: 1 }),
    tokens: NO_TOKENS,
    now: Date.now,
  });
  const result = adapter.status!({ paymentId }, { signal: new AbortController().signal });
  return { result, requests };
}

describe('moonpay status', () => {
  it('asks the transaction by our payment id with the publishable key, and reads it as its webhook would be read', async () => {
    const { result, requests } = await lookUp(200, JSON.stringify([transaction({ status: 'completed' })]));
    await expect(result).resolves.toEqual({
      match: {
        paymentId,
        providerReference: 'defb7c52-7bd3-422b-9052-374df50cc51a',
        walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
      },
      status: 'paid',
      rawStatus: 'completed',
      providerReference: 'defb7c52-7bd3-422b-9052-374df50cc51a',
      destination: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
    });
    expect(requests.map((url) => [url.pathname, Object.fromEntries(url.searchParams)])).toEqual([[LOOKUP_PATH, { apiKey: live.API_KEY }]]);
  });

  it('lets the transaction created last speak, with its failure reason', async () => {
    const older = transaction({ id: 'older', status: 'completed', createdAt: '2026-11-27T09:00:00.000Z' });
    const newer = transaction({ id: 'newer', status: 'failed', failureReason: 'Card declined', createdAt: '2026-11-27T10:00:00.000Z' });
    const { result } = await lookUp(200, JSON.stringify([older, newer]));
    await expect(result).resolves.toMatchObject({ status: 'failed', providerReference: 'newer', reason: 'Card declined' });
  });

  it('knows nothing yet on an empty array, a 404, or another order in the answer', async () => {
    await expect((await lookUp(200, '[]')).result).resolves.toBeNull();
    await expect((await lookUp(404, '{"message":"Not found"}')).result).resolves.toBeNull();
    await expect((await lookUp(200, JSON.stringify([transaction({ externalTransactionId: 'other' })]))).result).resolves.toBeNull();
  });

  it('throws on an error answer or a malformed one, for the poller to ask again later', async () => {
    await expect((await lookUp(500, '{}')).result).rejects.toThrow('HTTP 500');
    await expect((await lookUp(200, 'not json')).result).rejects.toThrow('not JSON');
    await expect((await lookUp(200, '{"id":"x"}')).result).rejects.toThrow('other than an array');
  });
});
