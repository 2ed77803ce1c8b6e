import { GATEWAY_CALLBACK_PARAMS } from '../src/callback-params';
import { callbackAddressPolicy, callbackSchemeRefusal, MAX_CALLBACK_URL_LENGTH, parseCallbackUrl } from '../src/callback-url';

const prod = { allowTestDomains: false };
const local = { allowTestDomains: true };

/** The thrown error, for asserting its code, param and exact message together. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

const HTTPS_MESSAGE = 'must use https in production: a callback sent over http can be read and replayed by anyone on the way';

describe('parseCallbackUrl: exact messages, naming the parameter', () => {
  it('takes a URL of exactly 2048 characters and refuses one more', () => {
    expect(MAX_CALLBACK_URL_LENGTH).toBe(2048);
    const head = 'https://shop.io/?q=';
    const longest = head + 'a'.repeat(2048 - head.length);
    expect(parseCallbackUrl(longest, prod)).toBe(longest);
    expect(thrown(() => parseCallbackUrl(`${longest}a`, prod, 'url'))).toMatchObject({
      code: 'invalid_parameter',
      param: 'url',
      message: 'url is longer than 2048 characters; shorten its parameters',
    });
  });

  it('explains an unparsable URL', () => {
    expect(thrown(() => parseCallbackUrl('not a url', prod))).toMatchObject({
      code: 'invalid_parameter',
      param: 'callback',
      message: 'callback must be an absolute http(s) URL, percent-encoded as a query value, e.g. https://shop.example/ipn?order=123',
    });
  });

  it('names the control character by code point and 1-based position', () => {
    expect(thrown(() => parseCallbackUrl('https://shop.io/\u0000', prod))).toMatchObject({
      code: 'invalid_parameter',
      param: 'callback',
      message:
        'callback contains a control character or whitespace (U+0000 at character 17); percent-encode it in the URL (a space is %20), ' +
        'then percent-encode the whole URL as the callback value',
    });
    expect(thrown(() => parseCallbackUrl('https://shop.io/\u009b', prod, 'cb')).message).toBe(
      'cb contains a control character or whitespace (U+009B at character 17); percent-encode it in the URL (a space is %20), then ' +
        'percent-encode the whole URL as the cb value',
    );
    expect(thrown(() => parseCallbackUrl('https://shop.io/?a=b c', prod)).message).toContain('(U+0020 at character 21)');
    expect(thrown(() => parseCallbackUrl('https://shop.io/\ufeff', prod)).message).toContain('(U+FEFF at character 17)');
  });

  it.each(['\u1680', '\u180e', '\u2000', '\u200a', '\u200b', '\u2028', '\u202f', '\u205f', '\u0085', '\u001f'])(
    'refuses the invisible or whitespace character %j',
    (char) => {
      expect(() => parseCallbackUrl(`https://shop.io/${char}`, local)).toThrow(/control character or whitespace/);
    },
  );

  it('keeps characters just outside the refused ranges', () => {
    for (const url of [
      'https://shop.io/?a=\u00a1',
      'https://shop.io/?a=\u200c',
      'https://shop.io/?a=\u2030',
      'https://shop.io/?a=\ud83d\ude00',
    ]) {
      expect(parseCallbackUrl(url, prod)).toBe(url);
    }
  });

  it('explains a lone surrogate', () => {
    expect(thrown(() => parseCallbackUrl('https://shop.io/\udc00', prod, 'cb'))).toMatchObject({
      param: 'cb',
      message: 'cb is not valid Unicode; percent-encode the URL as UTF-8',
    });
  });

  it('names a refused scheme without its colon', () => {
    expect(thrown(() => parseCallbackUrl('ftp://shop.io/x', prod))).toMatchObject({
      param: 'callback',
      message: 'callback must use http or https, not ftp',
    });
  });

  it('requires https only where the rules say so', () => {
    expect(parseCallbackUrl('http://shop.io/ipn', prod)).toBe('http://shop.io/ipn');
    expect(parseCallbackUrl('http://shop.io/ipn', { ...prod, requireHttps: false })).toBe('http://shop.io/ipn');
    expect(parseCallbackUrl('https://shop.io/ipn', { ...prod, requireHttps: true })).toBe('https://shop.io/ipn');
    expect(thrown(() => parseCallbackUrl('http://shop.io/ipn', { ...prod, requireHttps: true }))).toMatchObject({
      code: 'invalid_parameter',
      param: 'callback',
      message: `callback ${HTTPS_MESSAGE}`,
    });
  });

  it('explains credentials, password-only included, and port 0', () => {
    const credentials = 'callback must not carry a user name or password; put a secret token in a query parameter instead';
    expect(thrown(() => parseCallbackUrl('https://user@shop.io/ipn', prod)).message).toBe(credentials);
    expect(thrown(() => parseCallbackUrl('https://:pw@shop.io/ipn', prod)).message).toBe(credentials);
    expect(thrown(() => parseCallbackUrl('https://shop.io:0/ipn', prod))).toMatchObject({
      param: 'callback',
      message: "callback has port 0, which nothing can be reached on; give the shop's real port or none",
    });
  });

  it('refuses every placeholder name in production, naming the host', () => {
    for (const host of [
      'localhost',
      'example.net',
      'example.org',
      'a.example.com',
      'b.example.net',
      'c.example.org',
      'shop.example',
      'shop.invalid',
      'app.localhost',
      'printer.local',
      'shop.test',
      'EXAMPLE.COM',
      'example.com.',
    ]) {
      const url = `https://${host}/ipn`;
      const hostname = new URL(url).hostname;
      expect(thrown(() => parseCallbackUrl(url, prod))).toMatchObject({
        param: 'callback',
        message: `callback points at a placeholder or test domain (${hostname}); use the shop's real callback URL`,
      });
      expect(parseCallbackUrl(url, local)).toBe(url);
    }
  });

  it('lets names that merely contain a placeholder through', () => {
    for (const url of [
      'https://myexample.com/ipn',
      'https://example.com.shop.io/ipn',
      'https://shoptest/ipn',
      'https://local.shop.io/ipn',
      'https://notlocalhost/ipn',
    ]) {
      expect(parseCallbackUrl(url, prod)).toBe(url);
    }
  });

  it('explains a refused IP literal, with the address and the reason', () => {
    expect(thrown(() => parseCallbackUrl('http://10.0.0.5/ipn', prod))).toMatchObject({
      param: 'callback',
      message: expect.stringMatching(
        /^callback points at 10\.0\.0\.5 \(.*private.*\); the gateway never calls such an address, so the shop would never hear of a payment\. Use the shop's public host name$/,
      ),
    });
  });

  it('applies the given address policy instead of the default', () => {
    const policy = callbackAddressPolicy(false, ['10.0.0.0/8']);
    expect(parseCallbackUrl('http://10.0.0.5/ipn', { ...prod, addressPolicy: policy })).toBe('http://10.0.0.5/ipn');
    expect(() => parseCallbackUrl('http://192.168.0.1/ipn', { ...prod, addressPolicy: policy })).toThrow(/192\.168\.0\.1/);
  });

  it('explains a reserved parameter, listing them all', () => {
    expect(thrown(() => parseCallbackUrl('https://shop.io/ipn?value_coin=1', prod, 'cb'))).toMatchObject({
      param: 'cb',
      message:
        `cb already has a parameter named "value_coin", which the gateway adds itself; rename it (reserved: ` +
        `${GATEWAY_CALLBACK_PARAMS.join(', ')})`,
    });
  });
});

describe('callbackAddressPolicy', () => {
  it('exempts loopback only where test domains are allowed, and the allowed CIDRs everywhere', () => {
    expect(callbackAddressPolicy(false, []).refusalReason('127.0.0.1')).toMatch(/loopback/);
    expect(callbackAddressPolicy(true, []).refusalReason('127.0.0.1')).toBeUndefined();
    expect(callbackAddressPolicy(true, []).refusalReason('10.0.0.5')).toMatch(/private/);

    const prodAllowed = callbackAddressPolicy(false, ['10.1.0.0/16']);
    expect(prodAllowed.refusalReason('10.1.2.3')).toBeUndefined();
    expect(prodAllowed.refusalReason('10.2.2.3')).toMatch(/private/);
    expect(prodAllowed.refusalReason('127.0.0.1')).toMatch(/loopback/);

    const localAllowed = callbackAddressPolicy(true, ['10.1.0.0/16']);
    expect(localAllowed.refusalReason('10.1.2.3')).toBeUndefined();
    expect(localAllowed.refusalReason('127.0.0.1')).toBeUndefined();
    expect(localAllowed.refusalReason('::1')).toBeUndefined();
    expect(localAllowed.refusalReason('10.2.2.3')).toMatch(/private/);
  });
});

describe('callbackSchemeRefusal', () => {
  it('refuses http only when https is required', () => {
    expect(callbackSchemeRefusal(new URL('http://shop.io/'), true)).toBe(HTTPS_MESSAGE);
    expect(callbackSchemeRefusal(new URL('https://shop.io/'), true)).toBeUndefined();
    expect(callbackSchemeRefusal(new URL('http://shop.io/'), false)).toBeUndefined();
    expect(callbackSchemeRefusal(new URL('https://shop.io/'), false)).toBeUndefined();
  });
});
