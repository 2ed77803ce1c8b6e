import {
  callbackOwnerRefusal,
  callbackSchemeRefusal,
  parseAddressPin,
  parseCallbackUrl,
  parsePayoutAddress,
  pinnedAddressRefusal,
  tokenContractAt,
  WELL_KNOWN_TOKEN_CONTRACTS,
  type AffiliateTerms,
  type EvmAddress,
} from '../src';

const merchant = '0x52908400098527886E0F7030069857D2E4169EE7';
const other = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const affiliate = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' as EvmAddress;
const testToken = '0x5FbDB2315678afecb367f032d93F642f64180aa3' as EvmAddress;

describe('callbackOwnerRefusal', () => {
  const custom: AffiliateTerms = { kind: 'custom', address: affiliate, affiliateFeeBps: 9900, merchantFeeBps: 0 };
  it("answers the owner's own payout address and terms (any case) as a repeat", () => {
    expect(
      callbackOwnerRefusal({ payoutAddress: merchant.toLowerCase(), affiliate: null }, { payoutAddress: merchant, affiliate: null }),
    ).toBeUndefined();
  });
  it('refuses another payout address with callback_registered_elsewhere, whatever the terms, saying nothing of the owner', () => {
    for (const terms of [null, custom]) {
      expect(callbackOwnerRefusal({ payoutAddress: other, affiliate: terms }, { payoutAddress: merchant, affiliate: null })).toMatchObject({
        code: 'callback_registered_elsewhere',
        statusCode: 409,
        param: 'callback',
        message:
          'this callback URL (or another URL with the same origin and path: the query does not count) is already registered to a ' +
          'wallet with another payout address. ' +
          'A callback belongs to the first wallet registered with it, so that no payment to another wallet can ever fire it. ' +
          'Use a callback URL on another path; if this one is yours and the other wallet is not, the gateway operator can release it',
      });
    }
  });
  it("refuses the owner's payout address with other terms with the terms' own conflict", () => {
    expect(
      callbackOwnerRefusal({ payoutAddress: merchant, affiliate: custom }, { payoutAddress: merchant, affiliate: null }),
    ).toMatchObject({ code: 'conflict', statusCode: 409 });
  });
});

describe('token contracts', () => {
  it.each(WELL_KNOWN_TOKEN_CONTRACTS.map((token) => [token.name, token.address]))(
    '%s is refused as a payout address on any chain setting',
    (_name, address) => {
      for (const input of [address, address.toLowerCase()])
        expect(() => parsePayoutAddress(input, { tokenAddress: testToken })).toThrow(/is a token contract/);
    },
  );
  it('names each well-known token', () => {
    expect(WELL_KNOWN_TOKEN_CONTRACTS.map((token) => tokenContractAt(token.address.toLowerCase(), testToken))).toEqual([
      'USDC (native) on Polygon PoS',
      'USDC.e (bridged) on Polygon PoS',
    ]);
    // Configured as the token, a well-known one keeps its name.
    const usdc = WELL_KNOWN_TOKEN_CONTRACTS[0]!.address;
    expect(tokenContractAt(usdc, usdc)).toBe('USDC (native) on Polygon PoS');
  });
  it('names the configured token too, and nothing else', () => {
    expect(tokenContractAt(testToken.toLowerCase(), testToken)).toMatch(/configured token/);
    expect(tokenContractAt(merchant, testToken)).toBeUndefined();
  });
});

describe('https callbacks in production', () => {
  it('one rule: https only when required', () => {
    expect(callbackSchemeRefusal(new URL('http://shop.io/ipn'), true)).toMatch(/must use https in production/);
    expect(callbackSchemeRefusal(new URL('https://shop.io/ipn'), true)).toBeUndefined();
    expect(callbackSchemeRefusal(new URL('http://shop.io/ipn'), false)).toBeUndefined();
  });
  it("Create Wallet's callback check applies it", () => {
    expect(() => parseCallbackUrl('http://shop.io/ipn', { allowTestDomains: false, requireHttps: true })).toThrow(
      /callback must use https in production/,
    );
    expect(parseCallbackUrl('http://shop.io/ipn', { allowTestDomains: false })).toBe('http://shop.io/ipn');
  });
});

describe('pinned addresses', () => {
  it('an empty setting pins nothing; a list pins its addresses, any case', () => {
    const problems: string[] = [];
    expect(parseAddressPin(' ', 'PAYOUT_ADDRESSES', { tokenAddress: testToken }, problems)).toBeUndefined();
    const pin = parseAddressPin(`${merchant}, ${other.toLowerCase()}`, 'PAYOUT_ADDRESSES', { tokenAddress: testToken }, problems);
    expect(problems).toEqual([]);
    expect(pinnedAddressRefusal(merchant.toLowerCase(), pin, 'address')).toBeUndefined();
    expect(pinnedAddressRefusal(other, pin, 'address')).toBeUndefined();
    expect(pinnedAddressRefusal(affiliate, pin, 'address')).toMatchObject({
      code: 'address_not_allowed',
      statusCode: 403,
      param: 'address',
    });
    expect(pinnedAddressRefusal(affiliate, undefined, 'affiliate')).toBeUndefined();
  });
  it('names the setting and the entry for an entry that is not a payout address', () => {
    const problems: string[] = [];
    parseAddressPin(`0x1234,${WELL_KNOWN_TOKEN_CONTRACTS[1]!.address}`, 'AFFILIATE_ADDRESSES', { tokenAddress: testToken }, problems);
    expect(problems).toEqual([
      expect.stringMatching(/^AFFILIATE_ADDRESSES: 0x1234 must be/),
      expect.stringMatching(/^AFFILIATE_ADDRESSES: .*token contract/),
    ]);
  });
});
