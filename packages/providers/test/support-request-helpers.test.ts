import { MIN_PRODUCTION_SECRET_CHARACTERS } from '@gateway/domain';
import { ProviderCheckoutError } from '../src/provider-contract';
import { decimalAmount, jsonWithAmount } from '../src/support/amount-json';
import { apiUrlOf, apiUrlSetting } from '../src/support/api-url';
import { basicAuthorization } from '../src/support/basic-authorization';
import { urlWithQuery } from '../src/support/checkout-url';
import { secretSetting } from '../src/support/secret-setting';

describe('decimalAmount', () => {
  it('passes a decimal with two places through as it is', () => {
    expect(decimalAmount('Wert session', '0.50')).toBe('0.50');
    expect(decimalAmount('Wert session', '999999999999.99')).toBe('999999999999.99');
  });

  it.each(['1', '1.5', '1.505', '-1.00', '1e2', '1,00', ' 1.00', '1.00 ', '1234567890123.00', ''])(
    'refuses %j as not a decimal, naming the call, without sending it',
    (amount) => {
      const refusal = (() => {
        try {
          decimalAmount('Guardarian transaction', amount);
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(refusal).toBeInstanceOf(ProviderCheckoutError);
      expect(refusal).toMatchObject({
        kind: 'refused',
        failure: 'refused',
        message: `Guardarian transaction not sent: the amount ${amount} is not a decimal`,
      });
    },
  );

  it('quotes at most 20 characters of a refused amount', () => {
    expect(() => decimalAmount('Binance pre-order', `${'9'.repeat(30)}.00`)).toThrow(
      `Binance pre-order not sent: the amount ${'9'.repeat(20)} is not a decimal`,
    );
  });
});

describe('jsonWithAmount', () => {
  it('writes the amount as a JSON number, first or last, from the string itself', () => {
    const fields = { currency: 'USD', nested: { a: [1, 'b'] } };
    expect(jsonWithAmount(fields, 'from_amount', '149.99', 'first')).toBe('{"from_amount":149.99,"currency":"USD","nested":{"a":[1,"b"]}}');
    expect(jsonWithAmount(fields, 'fiatAmount', '149.99', 'last')).toBe('{"currency":"USD","nested":{"a":[1,"b"]},"fiatAmount":149.99}');
    // A float would print 0.1 + 0.2 otherwise; the digits go in as given.
    expect(jsonWithAmount({}, 'amount', '0.30', 'last')).toBe('{"amount":0.30}');
    expect(jsonWithAmount({}, 'amount', '0.30', 'first')).toBe('{"amount":0.30}');
  });

  it('escapes the member name as JSON', () => {
    expect(JSON.parse(jsonWithAmount({ a: 1 }, 'odd"name', '2.00', 'first'))).toEqual({ 'odd"name': 2, a: 1 });
  });
});

describe('urlWithQuery', () => {
  it('appends the parameters in the order given, encoded, to the base', () => {
    const url = urlWithQuery('https://buy.example.com', { b: 'x y', a: 'é&=', redirect: 'https://pay.example/r?x=1' });
    expect(url.toString()).toBe('https://buy.example.com/?b=x+y&a=%C3%A9%26%3D&redirect=https%3A%2F%2Fpay.example%2Fr%3Fx%3D1');
  });

  it('keeps the path and query of a URL base, and leaves out undefined values (an empty string is sent)', () => {
    const url = urlWithQuery(new URL('/direct/sid/', 'https://app.example.com'), { first: undefined, empty: '', last: 'z' });
    expect(url.toString()).toBe('https://app.example.com/direct/sid/?empty=&last=z');
    expect(urlWithQuery('https://h.example/p?k=1', { k: '2' }).toString()).toBe('https://h.example/p?k=1&k=2');
  });

  it('does not change the URL it was given', () => {
    const base = new URL('https://h.example/');
    urlWithQuery(base, { a: 'b' });
    expect(base.toString()).toBe('https://h.example/');
  });
});

describe('apiUrlOf and apiUrlSetting', () => {
  it('takes the setting over the default, without trailing slashes', () => {
    expect(apiUrlOf(undefined, 'https://api.example.com/')).toBe('https://api.example.com');
    expect(apiUrlOf('http://127.0.0.1:8080//', 'https://api.example.com')).toBe('http://127.0.0.1:8080');
    expect(apiUrlOf('https://proxy.example', 'https://api.example.com')).toBe('https://proxy.example');
  });

  it('is an optional setting of a scheme and host only', () => {
    const setting = apiUrlSetting('API host; default https://api.example.com');
    expect(setting).toMatchObject({ type: 'string', description: 'API host; default https://api.example.com' });
    const pattern = new RegExp(setting.pattern!);
    for (const good of ['https://api.example.com', 'http://127.0.0.1:8080/', 'https://a.example:443'])
      expect(pattern.test(good)).toBe(true);
    for (const bad of ['ftp://a.example', 'https://a.example/path', 'https://a.example?x', 'https://a b', 'api.example.com']) {
      expect(pattern.test(bad)).toBe(false);
    }
    expect(Symbol.for('TypeBox.Optional') in setting).toBe(true);
  });
});

describe('secretSetting', () => {
  it('is a string with its format, refused in production under the minimum secret length', () => {
    expect(secretSetting({ pattern: '^wsk_\\w+$' }, 'signing secret')).toMatchObject({
      type: 'string',
      pattern: '^wsk_\\w+$',
      productionMinLength: MIN_PRODUCTION_SECRET_CHARACTERS,
      description: 'signing secret',
    });
    const byLength = secretSetting({ minLength: 16 }, 'webhook secret');
    expect(byLength).toMatchObject({ type: 'string', minLength: 16, productionMinLength: MIN_PRODUCTION_SECRET_CHARACTERS });
    expect(byLength).not.toHaveProperty('pattern');
  });
});

describe('basicAuthorization', () => {
  it('is Basic and base64 of user:password (RFC 7617), an empty password kept', () => {
    expect(basicAuthorization('Aladdin', 'open sesame')).toBe('Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==');
    expect(basicAuthorization('sk_test_abc', '')).toBe(`Basic ${Buffer.from('sk_test_abc:').toString('base64')}`);
    expect(basicAuthorization('ü', 'p')).toBe(`Basic ${Buffer.from('ü:p', 'utf8').toString('base64')}`);
  });
});
