import { callbackPathBinding, walletTermsKey } from '../src/callback-ownership';
import { callbackOriginPath } from '../src/callback-url';
import type { EvmAddress } from '../src/evm-address';

// A shop reads `?order=X&x=1` as order X, and its server reads many spellings of one path as one:
// a callback's ownership is bound to its origin and path in one canonical form (issue 22).
describe('callbackOriginPath', () => {
  it.each([
    ['https://shop.io/ipn?order=1', 'https://shop.io/ipn'],
    ['https://shop.io/ipn?order=1&x=1#frag', 'https://shop.io/ipn'],
    ['HTTPS://SHOP.IO/ipn', 'https://shop.io/ipn'],
    ['https://shop.io:443/ipn', 'https://shop.io/ipn'],
    ['http://shop.io:80/ipn', 'http://shop.io/ipn'],
    ['https://shop.io./ipn', 'https://shop.io/ipn'],
    ['https://shop.io/a/./b/../ipn', 'https://shop.io/a/ipn'],
    ['https://shop.io/a/%2e%2E/ipn', 'https://shop.io/ipn'],
    ['https://shop.io\\ipn', 'https://shop.io/ipn'],
    ['https://shop.io/%69pn%7e', 'https://shop.io/ipn~'],
    ['https://shop.io/a%2fb%c3%a9', 'https://shop.io/a%2Fb%C3%A9'],
    ['https://shop.io', 'https://shop.io/'],
    ['https://bücher.example/ipn', 'https://xn--bcher-kva.example/ipn'],
    ['https://0x7f.1/ipn', 'https://127.0.0.1/ipn'],
  ])('%s → %s', (url, canonical) => {
    expect(callbackOriginPath(url)).toBe(canonical);
  });

  // Issue 35: a shop's server runs one handler for each of these spellings (nginx and Apache merge
  // slashes, a directory's slash and its index file are the directory, Java servers drop `;…`
  // path parameters, IIS and many routers ignore case): one claim for them all.
  it.each([
    ['a trailing slash', 'https://shop.io/ipn/'],
    ['a doubled slash', 'https://shop.io//ipn'],
    ['slashes doubled before and after', 'https://shop.io//ipn//?order=1'],
    ['the path in capitals', 'https://shop.io/IPN'],
    ['mixed case', 'https://shop.io/Ipn?order=1'],
    ['a path parameter', 'https://shop.io/ipn;x'],
    ['a session parameter before the query', 'https://shop.io/ipn;jsessionid=AB12?order=1'],
    ['its index.php', 'https://shop.io/ipn/index.php'],
    ['its index.html', 'https://shop.io/ipn/index.html'],
    ['its index file in capitals, with a slash after it', 'https://shop.io/IPN/Index.PHP/'],
    ['an encoded capital', 'https://shop.io/%49pn'],
    ['all of them', 'https://shop.io//IPN//index.php;x=1?order=1'],
  ])('%s is the shop’s /ipn', (_spelling, url) => {
    expect(callbackOriginPath(url)).toBe('https://shop.io/ipn');
  });

  it.each([
    ['https://shop.io/', 'https://shop.io/'],
    ['https://shop.io/index.php', 'https://shop.io/'],
    ['https://shop.io//', 'https://shop.io/'],
    ['https://shop.io/;x', 'https://shop.io/'],
    ['https://shop.io/a%2Fb/', 'https://shop.io/a%2Fb'],
    ['https://shop.io/a%3Bb', 'https://shop.io/a%3Bb'],
    ['https://shop.io/ipn/index.php2', 'https://shop.io/ipn/index.php2'],
    ['https://shop.io/ipn/myindex.php', 'https://shop.io/ipn/myindex.php'],
  ])('the root and what is no such spelling: %s → %s', (url, canonical) => {
    expect(callbackOriginPath(url)).toBe(canonical);
  });

  it('keeps what a server tells apart: the port, the scheme, another path', () => {
    const forms = [
      'https://shop.io/ipn',
      'https://shop.io:8443/ipn',
      'http://shop.io/ipn',
      'https://shop.io/ipn2',
      'https://shop.io/ipn/x',
    ];
    expect(new Set(forms.map(callbackOriginPath)).size).toBe(forms.length);
  });

  // Migration 025 recomputes the stored claims from their stored canonical form: the rule applied
  // to its own result changes nothing, so a claim recomputed from it is the claim of its URL.
  it.each([
    'https://shop.io//IPN//index.php;x=1?order=1',
    'HTTPS://Shop.io:443/a/%2e%2E/Pay/%49pn/',
    'https://shop.io/a%2fb%c3%a9;v=2',
    'https://shop.io/Index.html',
  ])('is its own canonical form: %s', (url) => {
    const canonical = callbackOriginPath(url);
    expect(callbackOriginPath(canonical)).toBe(canonical);
  });
});

describe('callbackPathBinding', () => {
  const payout = '0x52908400098527886E0F7030069857D2E4169EE7';
  const affiliate = '0x8ba1f109551bD432803012645Ac136ddd64DBA72' as EvmAddress;

  it('one key for one origin and path, whatever the query; terms as one text, any case', () => {
    const a = callbackPathBinding('https://shop.io/ipn?order=1', { payoutAddress: payout, affiliate: null });
    const b = callbackPathBinding('HTTPS://shop.io:443/ipn?order=1&x=1', { payoutAddress: payout.toLowerCase(), affiliate: null });
    expect(b).toEqual(a);
    expect(a.key).toHaveLength(32);
    expect(a.path).toBe('https://shop.io/ipn');
    expect(callbackPathBinding('https://shop.io/ipn2', { payoutAddress: payout, affiliate: null }).key).not.toEqual(a.key);
  });

  it('terms: payout alone; with an affiliate; with the custom split; affiliate.php share left out', () => {
    expect(walletTermsKey({ payoutAddress: payout, affiliate: null })).toBe(payout.toLowerCase());
    const configured = { kind: 'configured', address: affiliate, affiliateFeeBps: 50 } as const;
    expect(walletTermsKey({ payoutAddress: payout, affiliate: configured })).toBe(
      `${payout.toLowerCase()} affiliate ${affiliate.toLowerCase()}`,
    );
    expect(walletTermsKey({ payoutAddress: payout, affiliate: { ...configured, affiliateFeeBps: 125 } })).toBe(
      walletTermsKey({ payoutAddress: payout, affiliate: configured }),
    );
    expect(
      walletTermsKey({
        payoutAddress: payout,
        affiliate: { kind: 'custom', address: affiliate, affiliateFeeBps: 100, merchantFeeBps: 9_800 },
      }),
    ).toBe(`${payout.toLowerCase()} affiliate ${affiliate.toLowerCase()} split 9800/100`);
  });
});
