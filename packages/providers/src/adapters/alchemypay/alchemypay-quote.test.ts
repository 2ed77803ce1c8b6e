import { execFileSync } from 'node:child_process';
import { CONTRACT_NOW_MS, contractContext } from '../../../test/support/adapter-contract';
import type { CheckoutOrder, ProviderMode } from '../../provider-contract';
import { mockProviderApi } from '../../../test/support/mock-provider-api';
import { alchemypay } from './alchemypay-adapter';
import { alchemyPaySignContent } from './alchemypay-sign';

const settings: Record<ProviderMode, { APP_ID: string; APP_SECRET: string }> = {
  live: { APP_ID: 'f83Is2y7L425rxl8', APP_SECRET: 'app-secret-live-1234' },
  test: { APP_ID: 'ahzxh0klegv1fzol', APP_SECRET: 'app-secret-test-1234' },
};
/** The Estimate Price Query page's "Prod" and "Test" environments. */
const API_ORIGINS: Record<ProviderMode, string> = { live: 'https://openapi.alchemypay.org', test: 'https://openapi-test.alchemypay.org' };
const QUOTE_PATH = '/open/api/v4/merchant/order/quoted/result';

type Played = { statusCode: number; body: string };

/** Base64 HMAC-SHA256 as openssl computes it, independent of the adapter. */
function opensslHmacBase64(key: string, message: string): string {
  return execFileSync('openssl', ['dgst', '-sha256', '-hmac', key, '-binary'], { input: message }).toString('base64');
}

const envelope = (returnCode: string, returnMsg: string, data: unknown) =>
  JSON.stringify({ success: returnCode === '0000', returnCode, returnMsg, extend: '', data });

/**
 * The Estimate Price Query behind undici's MockAgent, from its page and API Sign: a POST with headers
 * appid, timestamp and sign, the sign being base64 HMAC-SHA256 of timestamp + "POST" + path + the body
 * as sent (which must be its own fields sorted, compact), the body holding the documented fields only.
 * A request not as documented gets the page's 81010 ("Merchant parameter error"); the answer is the
 * page's `data` object, fees taken as in its example (3.82 % ramp fee, 0.86 network fee, price 1.000).
 * The app secret never travels. `problems` lists what was not as documented.
 */
function fakeAlchemyPayEstimate(mode: ProviderMode, played?: Played) {
  const requests: string[] = [];
  const problems: string[] = [];
  const { agent, http } = mockProviderApi();
  agent
    .get(API_ORIGINS[mode])
    .intercept({ path: QUOTE_PATH, method: 'POST' })
    .reply((request) => {
      const body = String(request.body);
      requests.push(body);
      const headers = request.headers as Record<string, string>;
      const check = (ok: boolean, problem: string) => {
        if (!ok) problems.push(problem);
      };
      check(headers.appid === settings[mode].APP_ID, `appid ${headers.appid}`);
      check(headers.timestamp === String(CONTRACT_NOW_MS), `timestamp ${headers.timestamp}`);
      check(headers['content-type'] === 'application/json', `content-type ${headers['content-type']}`);
      check(headers.sign === opensslHmacBase64(settings[mode].APP_SECRET, `${headers.timestamp}POST${QUOTE_PATH}${body}`), 'sign');
      check(!`${JSON.stringify(headers)}${body}`.includes(settings[mode].APP_SECRET), 'the app secret was sent');
      const fields = JSON.parse(body) as Record<string, unknown>;
      const sorted = Object.keys(fields).sort();
      check(body === `{${sorted.map((name) => `${JSON.stringify(name)}:${JSON.stringify(fields[name])}`).join(',')}}`, 'body not sorted');
      const documented: Record<string, RegExp> = {
        side: /^BUY$/,
        fiatAmount: /^\d+\.\d{2}$/,
        fiatCurrency: /^[A-Z]{3}$/,
        cryptoCurrency: /^USDC$/,
        network: /^MATIC$/,
      };
      for (const name of new Set([...Object.keys(fields), ...Object.keys(documented)])) {
        const value = fields[name];
        check(documented[name] !== undefined && typeof value === 'string' && documented[name].test(value), `${name}=${String(value)}`);
      }
      if (problems.length > 0) return { statusCode: 200, data: envelope('81010', 'Merchant parameter error', null) };
      if (played) return { statusCode: played.statusCode, data: played.body };
      const fiat = fields.fiatCurrency as string;
      const cents = BigInt((fields.fiatAmount as string).replace('.', ''));
      const rampFee = (cents * 382n) / 10_000n;
      const networkFee = 86n;
      const decimal = (value: bigint, places: number) =>
        `${value / 10n ** BigInt(places)}.${(value % 10n ** BigInt(places)).toString().padStart(places, '0')}`;
      return {
        statusCode: 200,
        data: envelope('0000', 'SUCCESS', {
          cryptoPrice: '1.000',
          side: 'BUY',
          fiatAmount: fields.fiatAmount,
          cryptoQuantity: decimal((cents - rampFee - networkFee) * 1_000_000n, 8),
          rampFee: decimal(rampFee, 2),
          networkFee: decimal(networkFee, 2),
          fiat,
          crypto: 'USDC',
          payWayCode: '10001',
          cryptoNetworkFee: '0.86',
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
  secret = settings[mode].APP_SECRET,
) {
  const fake = fakeAlchemyPayEstimate(mode, played);
  const adapter = await alchemypay.create(
    { ...settings[mode], APP_SECRET: secret },
    contractContext('alchemypay', mode, { http: fake.http }),
  );
  return { quote: adapter.quote!(order, { signal: new AbortController().signal }), fake };
}

const answer = (data: unknown): Played => ({ statusCode: 200, body: envelope('0000', 'SUCCESS', data) });
const usd = (fields: object) => ({
  side: 'BUY',
  fiat: 'USD',
  crypto: 'USDC',
  fiatAmount: '100.00',
  cryptoQuantity: '95.32000000',
  ...fields,
});

describe('alchemypay quote', () => {
  it.each(['live', 'test'] as const)(
    'asks the Estimate Price Query on the %s API host, signed, and reads USDC and the total',
    async (mode) => {
      const { quote, fake } = await quoteFrom(mode, { amount: '100.00', currency: 'USD' });
      // The page's example: 100 less 3.82 and 0.86 is 95.32 USDC; the customer pays the 100.00.
      await expect(quote).resolves.toEqual({ usdc: 95_320_000n, total: '100.00', currency: 'USD' });
      expect(fake.requests).toEqual([
        '{"cryptoCurrency":"USDC","fiatAmount":"100.00","fiatCurrency":"USD","network":"MATIC","side":"BUY"}',
      ]);
      expect(fake.problems).toEqual([]);
    },
  );

  it('honours API_URL', async () => {
    const fake = fakeAlchemyPayEstimate('live');
    fake.agent
      .get('http://alchemypay-fake.local:8080')
      .intercept({ path: QUOTE_PATH, method: 'POST' })
      .reply(200, envelope('0000', 'SUCCESS', usd({})));
    const adapter = await alchemypay.create(
      { ...settings.live, API_URL: 'http://alchemypay-fake.local:8080/' },
      contractContext('alchemypay', 'live', { http: fake.http }),
    );
    await expect(adapter.quote!({ amount: '100.00', currency: 'USD' }, { signal: new AbortController().signal })).resolves.toEqual({
      usdc: 95_320_000n,
      total: '100.00',
      currency: 'USD',
    });
    expect(fake.requests).toEqual([]);
  });

  it("lays out the signed content as API Sign's worked example does", () => {
    // The page's Create Order body: redirectUrl is empty and dropped, depositType stays a number.
    const body = {
      side: 'BUY',
      cryptoCurrency: 'USDT',
      address: 'TSx82tWNWe5Ns6t3w94Ye3Gt6E5KeHSoP8',
      network: 'TRX',
      fiatCurrency: 'USD',
      amount: '100',
      depositType: 2,
      payWayCode: '10001',
      alpha2: 'US',
      redirectUrl: '',
      callbackUrl: 'http://payment.jyoumoney.com/alchemyRamp/pay/callback?tradeNo=DZ02207091800356304',
    };
    expect(alchemyPaySignContent('1699261493465', 'POST', '/open/api/v4/merchant/trade/create', body)).toBe(
      '1699261493465POST/open/api/v4/merchant/trade/create{"address":"TSx82tWNWe5Ns6t3w94Ye3Gt6E5KeHSoP8","alpha2":"US","amount":"100",' +
        '"callbackUrl":"http://payment.jyoumoney.com/alchemyRamp/pay/callback?tradeNo=DZ02207091800356304","cryptoCurrency":"USDT",' +
        '"depositType":2,"fiatCurrency":"USD","network":"TRX","payWayCode":"10001","side":"BUY"}',
    );
  });

  it('truncates USDC to base units', async () => {
    const { quote } = await quoteFrom(
      'live',
      { amount: '25.00', currency: 'EUR' },
      answer(usd({ fiat: 'EUR', fiatAmount: '25.00', cryptoQuantity: '24.00000019' })),
    );
    await expect(quote).resolves.toEqual({ usdc: 24_000_000n, total: '25.00', currency: 'EUR' });
  });

  it("reports Alchemy Pay's refusal with its return code", async () => {
    const played = {
      statusCode: 200,
      body: envelope('3102', 'Quote amount is out of the range, The Min purchase amount is 15, The max purchase amount is 2000', null),
    };
    const { quote } = await quoteFrom('live', { amount: '5.00', currency: 'USD' }, played);
    await expect(quote).rejects.toThrow(/Alchemy Pay refused the quote \(3102: Quote amount is out of the range/);
  });

  it('is refused when the signature is not made with the app secret the fake knows', async () => {
    const { quote, fake } = await quoteFrom('live', { amount: '25.00', currency: 'USD' }, undefined, 'another-secret-5678');
    await expect(quote).rejects.toThrow(/Alchemy Pay refused the quote \(81010: Merchant parameter error\)/);
    expect(fake.problems).toEqual(['sign']);
  });

  it('reports an HTTP error', async () => {
    const { quote } = await quoteFrom('live', { amount: '25.00', currency: 'USD' }, { statusCode: 502, body: '<html>Bad Gateway</html>' });
    await expect(quote).rejects.toThrow(/Alchemy Pay refused the quote \(HTTP 502\)/);
  });

  it.each([
    ['no data', answer(null)],
    ['data as a list, as earlier versions of the page showed it', answer([usd({})])],
    ['another crypto', answer(usd({ crypto: 'USDT' }))],
    ['another fiat', answer(usd({ fiat: 'EUR' }))],
    ['a sell estimate', answer(usd({ side: 'SELL' }))],
    ['no cryptoQuantity', answer(usd({ cryptoQuantity: undefined }))],
    ['no fiatAmount', answer(usd({ fiatAmount: undefined }))],
    ['a number for an amount', answer(usd({ cryptoQuantity: 95.32 }))],
    ['a zero amount', answer(usd({ cryptoQuantity: '0.00000000' }))],
  ])('refuses a malformed answer: %s', async (_why, played) => {
    const { quote } = await quoteFrom('live', { amount: '100.00', currency: 'USD' }, played);
    await expect(quote).rejects.toThrow(/Alchemy Pay's quote is malformed/);
  });

  it.each([
    [
      'success false with 0000',
      { statusCode: 200, body: JSON.stringify({ success: false, returnCode: '0000', returnMsg: 'SUCCESS', data: usd({}) }) },
    ],
    ['no returnCode', { statusCode: 200, body: JSON.stringify({ success: true, data: usd({}) }) }],
  ])('refuses an envelope that is not a success: %s', async (_why, played) => {
    const { quote } = await quoteFrom('live', { amount: '100.00', currency: 'USD' }, played);
    await expect(quote).rejects.toThrow(/Alchemy Pay refused the quote/);
  });
});
