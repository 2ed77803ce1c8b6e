import {
  buildCallbackUrl,
  DEPOSIT_CALLBACK_PARAMS,
  findGatewayParamIn,
  gatewayParamsIn,
  GATEWAY_CALLBACK_PARAMS,
  ORDER_CALLBACK_PARAMS,
  type GatewayCallbackParams,
} from '../src/callback-params';

const params: GatewayCallbackParams = {
  value_coin: '12.5',
  value_forwarded_coin: '12.375',
  fee_coin: '0.125',
  coin: 'polygon_usdc',
  txid_in: '0xaaa',
  txid_out: '0xbbb',
  address_in: '0x1111111111111111111111111111111111111111',
  address_out: '0x2222222222222222222222222222222222222222',
  ipn_token: 'tok_1',
};

const ours =
  'value_coin=12.5&value_forwarded_coin=12.375&fee_coin=0.125&coin=polygon_usdc' +
  '&txid_in=0xaaa&txid_out=0xbbb&address_in=0x1111111111111111111111111111111111111111' +
  '&address_out=0x2222222222222222222222222222222222222222&ipn_token=tok_1';

describe('buildCallbackUrl', () => {
  it('keeps encoded values exactly as the merchant wrote them', () => {
    const registered = 'https://shop.example/cb.php?q=a%20b&plus=a+b&enc=a%2Bb&name=%C3%A9t%C3%A9&lower=%c3%a9';
    expect(buildCallbackUrl(registered, params)).toBe(`${registered}&${ours}`);
  });

  it('keeps repeated parameters and their order', () => {
    const registered = 'https://shop.example/cb?b=2&a=1&a=2&c=3&a=3';
    expect(buildCallbackUrl(registered, params)).toBe(`${registered}&${ours}`);
  });

  it("keeps identical repeats: each one is the merchant's, and a framework may count them", () => {
    const registered = 'https://shop.example/cb?tag=x&tag=x&order=7&tag=x&&&';
    expect(buildCallbackUrl(registered, params)).toBe(`${registered}${ours}`);
    expect(new URL(buildCallbackUrl(registered, params)).searchParams.getAll('tag')).toEqual(['x', 'x', 'x']);
  });

  it('keeps empty values and names without a value', () => {
    const registered = 'https://shop.example/cb?a=&b&=c';
    expect(buildCallbackUrl(registered, params)).toBe(`${registered}&${ours}`);
  });

  it('starts a query when there is none', () => {
    expect(buildCallbackUrl('https://shop.example/cb', params)).toBe(`https://shop.example/cb?${ours}`);
  });

  it('adds no separator after a bare "?" or a trailing "&"', () => {
    expect(buildCallbackUrl('https://shop.example/cb?', params)).toBe(`https://shop.example/cb?${ours}`);
    expect(buildCallbackUrl('https://shop.example/cb?a=1&', params)).toBe(`https://shop.example/cb?a=1&${ours}`);
  });

  it('drops a fragment, including a "?" inside it', () => {
    expect(buildCallbackUrl('https://shop.example/cb?order=7#top', params)).toBe(`https://shop.example/cb?order=7&${ours}`);
    expect(buildCallbackUrl('https://shop.example/cb#x?y=1', params)).toBe(`https://shop.example/cb?${ours}`);
  });

  it('appends the gateway parameters in a fixed order, percent-encoded', () => {
    const built = buildCallbackUrl('https://shop.example/cb?order=7', {
      ...params,
      ipn_token: 'a b+c&d=e/é',
    });
    const query = built.slice(built.indexOf('?') + 1);
    expect(query.split('&').map((pair) => pair.split('=')[0])).toEqual(['order', ...DEPOSIT_CALLBACK_PARAMS]);
    expect(query.endsWith('&ipn_token=a%20b%2Bc%26d%3De%2F%C3%A9')).toBe(true);
    expect(new URL(built).searchParams.get('ipn_token')).toBe('a b+c&d=e/é');
  });

  it('returns the URL an HTTP client sends, so the signed string is the string received', () => {
    // Raw characters that cannot travel in a request line are escaped as any client would.
    const built = buildCallbackUrl('HTTPS://Shop.Example:443/a b/cb?name=é t&x="y"', params);
    expect(built).toBe(`https://shop.example/a%20b/cb?name=%C3%A9%20t&x=%22y%22&${ours}`);
    expect(new URL(built).href).toBe(built);
  });

  describe("the order's figures (issue 34)", () => {
    const order = { order_total_coin: '25.000001', order_expected_coin: '25', order_state: 'paid' };

    it("appends each one given after the deposit's parameters, in a fixed order", () => {
      expect(buildCallbackUrl('https://shop.example/cb?order=7', { ...params, ...order })).toBe(
        `https://shop.example/cb?order=7&${ours}&order_total_coin=25.000001&order_expected_coin=25&order_state=paid`,
      );
      expect(GATEWAY_CALLBACK_PARAMS).toEqual([...DEPOSIT_CALLBACK_PARAMS, ...ORDER_CALLBACK_PARAMS]);
      expect(ORDER_CALLBACK_PARAMS).toEqual(['order_total_coin', 'order_expected_coin', 'order_state']);
    });

    it('appends only those given: none for a delivery without figures, the total alone for an order without an expectation', () => {
      expect(buildCallbackUrl('https://shop.example/cb', params)).toBe(`https://shop.example/cb?${ours}`);
      expect(buildCallbackUrl('https://shop.example/cb', { ...params, order_total_coin: '3.5' })).toBe(
        `https://shop.example/cb?${ours}&order_total_coin=3.5`,
      );
    });

    it("reserves their names: a merchant's order_state is dropped, also from a callback that carries none of ours", () => {
      const registered = 'https://shop.example/cb?order=7&order_state=paid&order%5Ftotal_coin=999&order.expected_coin=1';
      expect(buildCallbackUrl(registered, params)).toBe(`https://shop.example/cb?order=7&${ours}`);
      expect(new URL(buildCallbackUrl(registered, { ...params, ...order })).searchParams.getAll('order_state')).toEqual(['paid']);
      expect(gatewayParamsIn(registered)).toEqual(['order_state', 'order_total_coin', 'order_expected_coin']);
      expect(findGatewayParamIn('https://shop.example/cb?order_state=paid')).toBe('order_state');
    });
  });

  describe('a registered URL that already uses a gateway name (registered before the name was reserved)', () => {
    it("drops the merchant's same-named parameter, so every framework reads the gateway's value, and never throws", () => {
      expect(buildCallbackUrl('https://shop.example/cb?value_coin=999', params)).toBe(`https://shop.example/cb?${ours}`);
      expect(buildCallbackUrl('https://shop.example/cb?a=1&ipn_token=x&b=2', params)).toBe(`https://shop.example/cb?a=1&b=2&${ours}`);
    });

    it('drops every spelling a framework reads as that name, and every repeat', () => {
      const registered = 'https://shop.example/cb?order=7&coin=eth&value%5Fcoin=1&value.coin=2&value+coin=3&coin=btc&%63oin=x&keep=coin';
      expect(buildCallbackUrl(registered, params)).toBe(`https://shop.example/cb?order=7&keep=coin&${ours}`);
    });

    it('keeps everything else byte for byte, empty pieces and a trailing "&" included', () => {
      expect(buildCallbackUrl('https://shop.example/cb?a=%20b&&coin=1&c=d+e&', params)).toBe(
        `https://shop.example/cb?a=%20b&&c=d+e&${ours}`,
      );
      expect(buildCallbackUrl('https://shop.example/cb?coin=1#frag', params)).toBe(`https://shop.example/cb?${ours}`);
    });

    it('leaves one value per gateway name for the URL parser too', () => {
      const built = buildCallbackUrl('https://shop.example/cb?coin=eth&value_coin=1000&order=7', params);
      const query = new URL(built).searchParams;
      for (const name of DEPOSIT_CALLBACK_PARAMS) expect(query.getAll(name)).toEqual([params[name]]);
      expect(query.get('order')).toBe('7');
    });

    it('names the parameters it dropped', () => {
      expect(gatewayParamsIn('https://shop.example/cb?coin=1&value%5Fcoin=2&coin=3&x=1')).toEqual(['coin', 'value_coin']);
      expect(gatewayParamsIn('https://shop.example/cb?x=1')).toEqual([]);
    });
  });
});

describe('findGatewayParamIn', () => {
  it('finds none in an ordinary callback', () => {
    expect(findGatewayParamIn('https://shop.example/cb?order=7&coin_name=x&xvalue_coin=1')).toBeUndefined();
    expect(findGatewayParamIn('https://shop.example/cb')).toBeUndefined();
  });

  it('returns the first gateway name in query order', () => {
    expect(findGatewayParamIn('https://shop.example/cb?a=1&txid_in=2&coin=3')).toBe('txid_in');
  });

  it('compares names after decoding them', () => {
    expect(findGatewayParamIn('https://shop.example/cb?value%5Fcoin=1')).toBe('value_coin');
    expect(findGatewayParamIn('https://shop.example/cb?%63oin')).toBe('coin');
    expect(findGatewayParamIn('https://shop.example/cb?Coin=1&coin+=2')).toBeUndefined();
  });

  it('looks at the query only, not the path or the fragment', () => {
    expect(findGatewayParamIn('https://shop.example/coin/cb#coin=1')).toBeUndefined();
  });

  it('answers undefined for text that is not an absolute URL', () => {
    expect(findGatewayParamIn('/cb?coin=1')).toBeUndefined();
  });
});
