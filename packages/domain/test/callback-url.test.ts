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

  it.each([
    ['a NUL', 'https://shop.io/\u0000'],
    ['a NUL in a parameter', 'https://shop.io/ipn?order=1\u0000&x=1'],
    ['a line feed (the URL parser would drop it silently)', 'https://shop.io/ipn?order=1\n'],
    ['a tab inside the host', 'https://sh\top.io/ipn'],
    ['a space', 'https://shop.io/ipn?note=a b'],
    ['a leading space', ' https://shop.io/ipn'],
    ['DEL', 'https://shop.io/\u007f'],
    ['a C1 control', 'https://shop.io/\u009b'],
    ['a no-break space', 'https://shop.io/\u00a0'],
    ['an ideographic space', 'https://shop.io/\u3000'],
    ['a paragraph separator', 'https://shop.io/\u2029'],
    ['a byte order mark', 'https://shop.io/\ufeff'],
    ['a lone surrogate', 'https://shop.io/\ud800'],
  ])('refuses %s, in production and locally', (_name, input) => {
    for (const rules of [prod, local]) {
      expect(() => parseCallbackUrl(input, rules)).toThrow(/control character or whitespace|not valid Unicode/);
    }
  });
  it('keeps other non-ASCII text as given', () => {
    expect(parseCallbackUrl('https://shop.io/bestellung?kunde=M\u00fcller', prod)).toBe('https://shop.io/bestellung?kunde=M\u00fcller');
  });

  describe('IP-literal hosts in a range the callback-worker refuses', () => {
    it.each([
      ['http://127.0.0.1/', '127.0.0.1', /loopback/],
      ['http://0x7f.1/', '127.0.0.1', /loopback/],
      ['http://2130706433/', '127.0.0.1', /loopback/],
      ['http://0177.0.0.1/', '127.0.0.1', /loopback/],
      ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1', /loopback/],
      ['http://[::1]/', '::1', /loopback/],
      ['http://[::7f00:1]/', '::7f00:1', /IPv4-compatible/],
      ['http://0.0.0.0/', '0.0.0.0', /unspecified/],
      ['http://0/', '0.0.0.0', /unspecified/],
      ['http://[::]/', '::', /unspecified/],
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', /linkLocal/],
      ['http://10.0.0.5/', '10.0.0.5', /private/],
      ['http://[fe80::1]/', 'fe80::1', /linkLocal/],
      ['http://[fc00::1]/', 'fc00::1', /uniqueLocal/],
      ['http://[2002:7f00:1::]/', '2002:7f00:1::', /6to4/],
      ['http://192.0.2.1/', '192.0.2.1', /reserved/],
    ])('refuses %s (%s) in production', (input, host, reason) => {
      expect(() => parseCallbackUrl(input, prod)).toThrow(new RegExp(`${host.replaceAll('.', '\\.')}.*${reason.source}`));
    });
    it('allows loopback locally, nothing else internal', () => {
      expect(parseCallbackUrl('http://127.0.0.1:3400/ipn', local)).toBe('http://127.0.0.1:3400/ipn');
      expect(parseCallbackUrl('http://[::1]:3400/ipn', local)).toBe('http://[::1]:3400/ipn');
      expect(() => parseCallbackUrl('http://10.0.0.5/ipn', local)).toThrow(/private/);
      expect(() => parseCallbackUrl('http://169.254.169.254/', local)).toThrow(/linkLocal/);
    });
    it('lets public addresses and names through (names are checked by the callback-worker, after DNS)', () => {
      for (const url of [
        'https://93.184.216.34/ipn',
        'https://[2606:4700:4700::1111]/ipn',
        'https://127.0.0.1.nip.io/ipn',
        'https://10.shop.io/ipn',
        // A name may start or end with a digit: only a host that is digits and dots is an address.
        'https://365shop.io/ipn',
        'https://pay.shop.web3/ipn',
        'https://shop.io/10.0.0.5',
      ]) {
        expect(parseCallbackUrl(url, prod)).toBe(url);
      }
    });
  });

  it('refuses port 0, in production and locally', () => {
    for (const rules of [prod, local]) {
      expect(() => parseCallbackUrl('https://shop.io:0/ipn', rules)).toThrow(/port 0/);
      expect(() => parseCallbackUrl('http://127.0.0.1:00/ipn', rules)).toThrow(/port 0/);
    }
    expect(parseCallbackUrl('https://shop.io:8443/ipn', prod)).toBe('https://shop.io:8443/ipn');
  });
});
