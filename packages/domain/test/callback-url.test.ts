import { parseCallbackUrl } from '../src/callback-url';

const prod = { allowTestDomains: false };
const local = { allowTestDomains: true };

describe('parseCallbackUrl', () => {
  it('keeps the URL exactly as given', () => {
    const url = 'https://shop.io/ipn?order=1&b=%20x&a=1&a=2';
    expect(parseCallbackUrl(url, prod)).toBe(url);
  });
  it.each([
    ['not a url', /absolute http/],
    ['/relative/path?x=1', /absolute http/],
    ['ftp://shop.io/x', /http or https/],
    ['javascript:alert(1)', /http or https/],
    ['https://user:pw@shop.io/ipn', /user name or password/],
    [`https://shop.io/?q=${'a'.repeat(2048)}`, /2048/],
    ['https://shop.io/ipn?value_coin=1', /value_coin/],
    ['https://shop.io/ipn?order=1&txid.in=2', /txid_in/],
  ])('refuses %p', (input, message) => {
    expect(() => parseCallbackUrl(input, prod)).toThrow(message);
  });
  it('refuses placeholder domains in production only', () => {
    for (const url of ['https://example.com/cb?x=1', 'https://api.shop.test/cb', 'http://localhost:3400/cb']) {
      expect(() => parseCallbackUrl(url, prod)).toThrow(/placeholder/);
      expect(parseCallbackUrl(url, local)).toBe(url);
    }
  });
});
