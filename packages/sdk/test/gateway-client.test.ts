import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { affiliateConsentMessage, GatewayClient, GatewayRequestError, type PersonalMessageSigner } from '../src';

// The client against a local HTTP server standing in for the gateway's {base_url}: each test says
// what the server answers and checks what the client asked (path and raw query, encoded once).

type Handler = (request: IncomingMessage, response: ServerResponse) => void;
let server: Server;
let baseUrl: string;
let handler: Handler;
const asked: string[] = [];
const acceptHeaders: (string | undefined)[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    asked.push(request.url ?? '');
    acceptHeaders.push(request.headers.accept);
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/gw/`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  asked.length = 0;
  acceptHeaders.length = 0;
});

const answer =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
const client = (options: { timeoutMs?: number } = {}) => new GatewayClient({ baseUrl, paymentUrl: 'https://pay.example.com/', ...options });

const PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7';
const AFFILIATE = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const CALLBACK = 'https://shop.example/ipn?order_id=12 34&x=a+b';
const WALLET = {
  address_in: 'local1.abc_-',
  polygon_address_in: '0x275BD9c6b5dCf9fd8C4e5f2EC6bC5EfCbd8A40e2',
  callback_url: CALLBACK,
  ipn_token: 'IJM9GLtXq0m1cS3aZl9m4b8wYpV2Rr7o',
};

describe('createWallet', () => {
  it('asks wallet.php under the base path with each value encoded once, and answers the wallet in camelCase', async () => {
    handler = answer(200, WALLET);
    const wallet = await client().createWallet({ payoutAddress: PAYOUT, callbackUrl: CALLBACK });
    expect(asked).toEqual([`/gw/control/wallet.php?address=${PAYOUT}&callback=${encodeURIComponent(CALLBACK)}`]);
    expect(new URL(asked[0]!, 'http://x').searchParams.get('callback')).toBe(CALLBACK);
    expect(acceptHeaders).toEqual(['application/json']);
    expect(wallet).toEqual({
      addressIn: WALLET.address_in,
      polygonAddressIn: WALLET.polygon_address_in,
      callbackUrl: CALLBACK,
      ipnToken: WALLET.ipn_token,
    });
  });

  it('sends the optional order terms as Create Wallet names them: customer_pays_fee 1 or 0, order_tolerance_bps', async () => {
    handler = answer(200, WALLET);
    await client().createWallet({ payoutAddress: PAYOUT, callbackUrl: CALLBACK, customerPaysFee: true, orderToleranceBps: 50 });
    await client().createWallet({ payoutAddress: PAYOUT, callbackUrl: CALLBACK, customerPaysFee: false });
    const sent = asked.map((url) => new URL(url, 'http://x').searchParams);
    expect(sent.map((query) => query.get('customer_pays_fee'))).toEqual(['1', '0']);
    expect(sent.map((query) => query.get('order_tolerance_bps'))).toEqual(['50', null]);
  });

  it("throws the gateway's error with its status, code, message and param", async () => {
    handler = answer(409, {
      status: 'error',
      code: 'callback_registered_elsewhere',
      error: 'this callback belongs to another payout address',
      param: 'callback',
    });
    const error = await client()
      .createWallet({ payoutAddress: PAYOUT, callbackUrl: CALLBACK })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayRequestError);
    expect((error as Error).name).toBe('GatewayRequestError');
    expect(error).toMatchObject({
      status: 409,
      code: 'callback_registered_elsewhere',
      message: 'this callback belongs to another payout address',
      param: 'callback',
      retryAfterSeconds: undefined,
    });
  });

  it('reads Retry-After on a 429', async () => {
    handler = answer(429, { status: 'error', code: 'rate_limited', error: 'slow down' }, { 'retry-after': '17' });
    await expect(client().createWallet({ payoutAddress: PAYOUT, callbackUrl: CALLBACK })).rejects.toMatchObject({
      status: 429,
      code: 'rate_limited',
      param: undefined,
      retryAfterSeconds: 17,
    });
  });

  it('an answer that is not the API (HTML, a 200 without the fields) is unexpected_response, never a half wallet', async () => {
    handler = (_request, response) => response.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>');
    await expect(client().createWallet({ payoutAddress: PAYOUT, callbackUrl: CALLBACK })).rejects.toMatchObject({
      status: 502,
      code: 'unexpected_response',
      message: '/control/wallet.php answered HTTP 502 without a JSON object',
    });
    handler = answer(200, null);
    await expect(client().createWallet({ payoutAddress: PAYOUT, callbackUrl: CALLBACK })).rejects.toMatchObject({
      status: 200,
      code: 'unexpected_response',
    });
    handler = answer(500, { status: 'error' });
    await expect(client().createWallet({ payoutAddress: PAYOUT, callbackUrl: CALLBACK })).rejects.toMatchObject({
      status: 500,
      code: 'unexpected_response',
      message: '/control/wallet.php answered HTTP 500',
      param: undefined,
    });
    handler = answer(200, { ...WALLET, ipn_token: 42 });
    await expect(client().createWallet({ payoutAddress: PAYOUT, callbackUrl: CALLBACK })).rejects.toMatchObject({
      status: 200,
      code: 'unexpected_response',
      message: expect.stringContaining('ipn_token'),
    });
    handler = answer(418, ['not', 'an', 'object']);
    await expect(client().createWallet({ payoutAddress: PAYOUT, callbackUrl: CALLBACK })).rejects.toMatchObject({
      status: 418,
      code: 'unexpected_response',
    });
  });

  it('a gateway that does not answer in time is a timeout; one that cannot be reached a network_error', async () => {
    handler = () => undefined;
    await expect(client({ timeoutMs: 100 }).createWallet({ payoutAddress: PAYOUT, callbackUrl: CALLBACK })).rejects.toMatchObject({
      status: 0,
      code: 'timeout',
      message: 'the gateway did not answer /control/wallet.php within 100 ms',
    });
    const closed = new GatewayClient({ baseUrl: 'http://127.0.0.1:9', paymentUrl: 'https://pay.example.com' });
    await expect(closed.createWallet({ payoutAddress: PAYOUT, callbackUrl: CALLBACK })).rejects.toMatchObject({
      status: 0,
      code: 'network_error',
      message: 'the gateway could not be reached: fetch failed',
    });
  });
});

describe('affiliate wallets', () => {
  const signer: PersonalMessageSigner & { messages: string[] } = {
    messages: [],
    signMessage({ message }) {
      this.messages.push(message);
      return Promise.resolve(`0x${'ab'.repeat(65)}`);
    },
  };
  beforeEach(() => {
    signer.messages.length = 0;
    handler = answer(200, WALLET);
  });

  it('affiliate.php: the signer signs the documented message with the default split, sent as signature', async () => {
    await client().createAffiliateWallet({
      payoutAddress: PAYOUT,
      callbackUrl: CALLBACK,
      affiliateAddress: AFFILIATE,
      consent: { signer },
    });
    expect(signer.messages).toEqual([
      affiliateConsentMessage({
        payoutAddress: PAYOUT,
        affiliateAddress: AFFILIATE,
        merchantFee: '0.985',
        affiliateFee: '0.005',
        callbackUrl: CALLBACK,
      }),
    ]);
    const query = new URL(asked[0]!, 'http://x');
    expect(query.pathname).toBe('/gw/control/affiliate.php');
    expect(Object.fromEntries(query.searchParams)).toEqual({
      address: PAYOUT,
      callback: CALLBACK,
      affiliate: AFFILIATE,
      signature: `0x${'ab'.repeat(65)}`,
    });
  });

  it("affiliate.php: the operator's published split is what the signer signs", async () => {
    const consent = { signer, merchantFee: '0.97', affiliateFee: '0.02' };
    await client().createAffiliateWallet({ payoutAddress: PAYOUT, callbackUrl: CALLBACK, affiliateAddress: AFFILIATE, consent });
    expect(signer.messages[0]).toContain('merchant_fee: 0.97\naffiliate_fee: 0.02\n');
  });

  it('a signature made beforehand is sent as is; no consent sends no signature (the operator lists the affiliate)', async () => {
    await client().createAffiliateWallet({
      payoutAddress: PAYOUT,
      callbackUrl: CALLBACK,
      affiliateAddress: AFFILIATE,
      consent: { signature: '0xfeed' },
    });
    await client().createAffiliateWallet({ payoutAddress: PAYOUT, callbackUrl: CALLBACK, affiliateAddress: AFFILIATE });
    expect(new URL(asked[0]!, 'http://x').searchParams.get('signature')).toBe('0xfeed');
    expect(new URL(asked[1]!, 'http://x').searchParams.has('signature')).toBe(false);
    expect(signer.messages).toEqual([]);
  });

  it('custom-affiliate.php: both fees sent and signed', async () => {
    const wallet = await client().createCustomAffiliateWallet({
      payoutAddress: PAYOUT,
      callbackUrl: CALLBACK,
      affiliateAddress: AFFILIATE,
      merchantFee: '0.98',
      affiliateFee: '0.01',
      consent: { signer },
    });
    expect(wallet.ipnToken).toBe(WALLET.ipn_token);
    expect(signer.messages[0]).toContain('merchant_fee: 0.98\naffiliate_fee: 0.01\n');
    const query = new URL(asked[0]!, 'http://x');
    expect(query.pathname).toBe('/gw/control/custom-affiliate.php');
    expect(Object.fromEntries(query.searchParams)).toMatchObject({ affiliate_fee: '0.01', merchant_fee: '0.98' });
  });
});

describe('convert and paymentStatus', () => {
  it('convert asks convert.php and answers valueCoin and exchangeRate', async () => {
    handler = answer(200, { status: 'success', value_coin: '54.24', exchange_rate: '1.086956522' });
    expect(await client().convert({ value: '49.9', from: 'eur' })).toEqual({ valueCoin: '54.24', exchangeRate: '1.086956522' });
    expect(asked).toEqual(['/gw/control/convert.php?value=49.9&from=eur']);
  });

  it("paymentStatus hands the API's answer on, and refuses one without a known status", async () => {
    const status = { status: 'unpaid', value_coin: '0', deposits: [], payments: [] };
    handler = answer(200, status);
    expect(await client().paymentStatus('IJM9GLtXq0m1cS3aZl9m4b8wYpV2Rr7o')).toEqual(status);
    expect(asked).toEqual(['/gw/control/payment-status.php?ipn_token=IJM9GLtXq0m1cS3aZl9m4b8wYpV2Rr7o']);
    handler = answer(200, { ...status, status: 'paid' });
    expect(await client().paymentStatus('IJM9GLtXq0m1cS3aZl9m4b8wYpV2Rr7o')).toMatchObject({ status: 'paid' });
    handler = answer(200, { ...status, status: 'maybe' });
    await expect(client().paymentStatus('IJM9GLtXq0m1cS3aZl9m4b8wYpV2Rr7o')).rejects.toMatchObject({ code: 'unexpected_response' });
  });
});

describe('callbackPublicKeys', () => {
  it('reads the JWK set, and refuses an empty or malformed one', async () => {
    const key = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'k1' };
    handler = answer(200, { keys: [key] });
    expect(await client().callbackPublicKeys()).toEqual([key]);
    expect(asked).toEqual(['/gw/.well-known/jwks.json']);
    for (const keys of [[], 'k', [null], [key, 'k']]) {
      handler = answer(200, { keys });
      await expect(client().callbackPublicKeys()).rejects.toMatchObject({
        code: 'unexpected_response',
        message: expect.stringContaining('keys'),
      });
    }
  });
});

describe('links and hosts', () => {
  it('payment links go to the payment host, address_in encoded exactly once', () => {
    const link = client().paymentLink({
      addressIn: 'a%2Fb',
      amount: '49.90',
      provider: 'moonpay',
      email: 'jane+1@shop.io',
      currency: 'EUR',
    });
    expect(link).toBe(
      'https://pay.example.com/process-payment.php?address=a%252Fb&amount=49.90&provider=moonpay&email=jane%2B1%40shop.io&currency=EUR',
    );
    expect(new URL(link).searchParams.get('address')).toBe('a%2Fb');
  });

  it('the hosted link carries the branding given, and nothing for what is not', () => {
    const plain = client().hostedPaymentLink({ addressIn: 'tok', amount: '5', email: 'a@b.io', currency: 'USD' });
    expect(plain).toBe('https://pay.example.com/pay.php?address=tok&amount=5&email=a%40b.io&currency=USD');
    const branded = client().hostedPaymentLink({
      addressIn: 'tok',
      amount: '5',
      email: 'a@b.io',
      currency: 'USD',
      domain: 'Greenleaf Tea',
      logo: 'https://cdn.shop.io/logo.svg',
      button: '#0b6e4f',
    });
    expect(Object.fromEntries(new URL(branded).searchParams)).toMatchObject({
      domain: 'Greenleaf Tea',
      logo: 'https://cdn.shop.io/logo.svg',
      button: '#0b6e4f',
    });
  });

  it('refuses hosts that are not plain http(s) hosts', () => {
    expect(() => new GatewayClient({ baseUrl: 'ftp://x', paymentUrl: 'https://p' })).toThrow('baseUrl must be an http(s) URL');
    expect(() => new GatewayClient({ baseUrl: 'https://x', paymentUrl: 'https://p/?a=1' })).toThrow(
      'paymentUrl must be the host (and optional path) without a query or fragment',
    );
    expect(() => new GatewayClient({ baseUrl: 'https://x#f', paymentUrl: 'https://p' })).toThrow('baseUrl must be the host');
  });

  it('a base URL with trailing slashes is its path once', async () => {
    handler = answer(200, WALLET);
    await new GatewayClient({ baseUrl: `${baseUrl}//`, paymentUrl: 'https://p' }).createWallet({
      payoutAddress: PAYOUT,
      callbackUrl: CALLBACK,
    });
    expect(asked[0]).toMatch(/^\/gw\/control\/wallet\.php\?/);
  });
});
