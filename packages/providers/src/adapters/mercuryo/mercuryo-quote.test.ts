import { contractContext } from '../../../test/support/adapter-contract';
import type { CheckoutOrder, ProviderMode } from '../../provider-contract';
import { mockProviderApi } from '../../../test/support/mock-provider-api';
import { mercuryo } from './mercuryo-adapter';

const settings: Record<ProviderMode, { WIDGET_ID: string; SECRET_KEY: string; SIGN_KEY: string }> = {
  live: { WIDGET_ID: '67710925-8b40-4767-846e-3b88db69f04d', SECRET_KEY: 'widget-secret-live-1234', SIGN_KEY: 'sign-key-live-5678' },
  test: { WIDGET_ID: '0b9c2f4e-1d3a-4c5b-8e7f-6a5b4c3d2e1f', SECRET_KEY: 'widget-secret-test-1234', SIGN_KEY: 'sign-key-test-5678' },
};
/** Mercuryo's API hosts: production and its "Sandbox URLs" API host. */
const API_ORIGINS: Record<ProviderMode, string> = { live: 'https://api.mercuryo.io', test: 'https://sandbox-api.mrcr.io' };
const RATE_PATH = '/v1.6/widget/buy/rate';

type Played = { statusCode: number; body: string };

/**
 * Mercuryo's buy rate behind undici's MockAgent, from Widget_API_Mercuryo_v1.6.md (4.3.3) and the
 * parameter reference: GET with the widget's id and the documented query (an unknown widget gets
 * Mercuryo's 403, a wrong query 400), answering the documented `data` with decimal strings; the
 * secret and sign key never travel. `problems` lists what was not as documented.
 */
function fakeMercuryoRate(mode: ProviderMode, played?: Played) {
  const requests: URL[] = [];
  const problems: string[] = [];
  const { agent, http } = mockProviderApi();
  agent
    .get(API_ORIGINS[mode])
    .intercept({ path: (path) => path.split('?')[0] === RATE_PATH, method: 'GET' })
    .reply((request) => {
      const url = new URL(request.path, API_ORIGINS[mode]);
      requests.push(url);
      const query = url.searchParams;
      if (query.get('widget_id') !== settings[mode].WIDGET_ID) return { statusCode: 403, data: { status: 403, message: 'Forbidden' } };
      const documented: Record<string, RegExp> = {
        from: /^[A-Z]{3}$/,
        to: /^USDC$/,
        type: /^buy$/,
        amount: /^\d+\.\d{2}$/,
        is_total: /^true$/,
        widget_id: /^[0-9a-f-]{36}$/,
        network: /^POLYGON$/,
        payment_method: /^card$/,
      };
      for (const name of new Set([...query.keys(), ...Object.keys(documented)])) {
        if (!documented[name] || query.getAll(name).length !== 1 || !documented[name].test(query.get(name) ?? '')) {
          problems.push(`${name}=${query.getAll(name)}`);
        }
      }
      const headers = JSON.stringify(request.headers);
      if (headers.includes(settings[mode].SECRET_KEY) || headers.includes(settings[mode].SIGN_KEY)) problems.push('a secret was sent');
      if (problems.length > 0) return { statusCode: 400, data: { status: 400, message: 'Invalid parameters' } };
      if (played) return { statusCode: played.statusCode, data: played.body };
      const fiat = query.get('from') as string;
      const total = query.get('amount') as string;
      // 3.95 % taken out of the total, as the example's 14.72 of 150.00 is about; USDC at 1:1.
      const cents = BigInt(total.replace('.', ''));
      const feeCents = (cents * 395n) / 10_000n;
      const subtotal = cents - feeCents;
      const decimal = (value: bigint, places: number) =>
        `${value / 10n ** BigInt(places)}.${(value % 10n ** BigInt(places)).toString().padStart(places, '0')}`;
      const usdc = decimal(subtotal * 10_000n, 6);
      return {
        statusCode: 200,
        data: JSON.stringify({
          status: 200,
          data: {
            buy_token: 'b64-token',
            currency: 'USDC',
            amount: usdc,
            fiat_amount: total,
            fiat_currency: fiat,
            rate: '1.00',
            fee: { USDC: decimal(feeCents * 10_000n, 6), [fiat]: decimal(feeCents, 2) },
            subtotal: { USDC: usdc, [fiat]: decimal(subtotal, 2) },
            total: { USDC: decimal(cents * 10_000n, 6), [fiat]: total },
            kyc_limit_exceeded: false,
          },
        }),
      };
    })
    .persist();
  return { requests, problems, agent, http };
}

async function quoteFrom(
  mode: ProviderMode,
  order: Pick<CheckoutOrder, 'amount' | 'currency'>,
  played?: Played,
  widgetId = settings[mode].WIDGET_ID,
) {
  const fake = fakeMercuryoRate(mode, played);
  const adapter = await mercuryo.create({ ...settings[mode], WIDGET_ID: widgetId }, contractContext('mercuryo', mode, { http: fake.http }));
  return { quote: adapter.quote!(order, { signal: new AbortController().signal }), fake };
}

const answer = (data: object): Played => ({ statusCode: 200, body: JSON.stringify({ status: 200, data }) });

describe('mercuryo quote', () => {
  it.each(['live', 'test'] as const)(
    'asks the buy rate on the %s API host with the widget id and reads USDC and the total',
    async (mode) => {
      const { quote, fake } = await quoteFrom(mode, { amount: '150.00', currency: 'EUR' });
      // 150.00 less 5.92 (3.95 %): 144.08 USDC; the customer pays the 150.00 total.
      await expect(quote).resolves.toEqual({ usdc: 144_080_000n, total: '150.00', currency: 'EUR' });
      expect(fake.requests).toHaveLength(1);
      expect(fake.problems).toEqual([]);
    },
  );

  it('truncates USDC to base units', async () => {
    const played = answer({ currency: 'USDC', amount: '24.0000019', fiat_currency: 'USD', total: { USDC: '25.0', USD: '25.00' } });
    const { quote } = await quoteFrom('live', { amount: '25.00', currency: 'USD' }, played);
    await expect(quote).resolves.toEqual({ usdc: 24_000_001n, total: '25.00', currency: 'USD' });
  });

  it('reports Mercuryo’s error answer', async () => {
    const { quote } = await quoteFrom(
      'live',
      { amount: '5.00', currency: 'USD' },
      { statusCode: 400, body: '{"status":400,"message":"Amount is too low"}' },
    );
    await expect(quote).rejects.toThrow(/Mercuryo refused the quote \(HTTP 400: Amount is too low\)/);
  });

  it('is refused for a widget id it does not know', async () => {
    const { quote } = await quoteFrom('live', { amount: '25.00', currency: 'USD' }, undefined, '11111111-2222-4333-8444-555555555555');
    await expect(quote).rejects.toThrow(/HTTP 403/);
  });

  it.each([
    ['no data', { statusCode: 200, body: '{"status":200}' }],
    ['another crypto', answer({ currency: 'USDT', amount: '24.0', fiat_currency: 'USD', total: { USD: '25.00' } })],
    ['another fiat', answer({ currency: 'USDC', amount: '24.0', fiat_currency: 'EUR', total: { EUR: '25.00' } })],
    ['no total in the fiat', answer({ currency: 'USDC', amount: '24.0', fiat_currency: 'USD', total: { USDC: '25.0' } })],
    ['a number for an amount', answer({ currency: 'USDC', amount: 24, fiat_currency: 'USD', total: { USD: '25.00' } })],
  ])('refuses a malformed answer: %s', async (_why, played) => {
    const { quote } = await quoteFrom('live', { amount: '25.00', currency: 'USD' }, played);
    await expect(quote).rejects.toThrow(/Mercuryo's quote is malformed/);
  });
});
