import { countryFromProxy, isUserAssignedCountryCode, subdivisionFromProxy } from '../src';

describe("the customer's country from a trusted proxy", () => {
  it('reads an ISO 3166-1 alpha-2 code in any case', () => {
    expect(countryFromProxy('DE', 'cf-ipcountry')).toBe('DE');
    expect(countryFromProxy('br', 'cf-ipcountry')).toBe('BR');
    expect(countryFromProxy(' US ', 'cf-ipcountry')).toBe('US');
  });

  it("knows no country for the private-use codes (Cloudflare's XX) and Cloudflare's T1 (Tor)", () => {
    for (const code of ['XX', 'xx', 'AA', 'ZZ', 'QM', 'QZ', 'XA', 'T1']) expect(countryFromProxy(code, 'cf-ipcountry')).toBeUndefined();
    expect(isUserAssignedCountryCode('QL')).toBe(false);
    expect(isUserAssignedCountryCode('QA')).toBe(false);
  });

  it.each(['', 'DEU', 'en-US', 'D1', '🇩🇪'])('refuses %p naming the header', (value) => {
    expect(() => countryFromProxy(value, 'cf-ipcountry')).toThrow(/cf-ipcountry must be an ISO 3166-1 alpha-2 country code/);
  });
});

describe("the customer's subdivision from a trusted proxy", () => {
  it("reads Cloudflare's cf-region-code (the code alone) and a whole ISO 3166-2 code of the customer's country", () => {
    expect(subdivisionFromProxy('TX', 'US', 'cf-region-code')).toBe('TX');
    expect(subdivisionFromProxy(' ny ', 'US', 'cf-region-code')).toBe('NY');
    expect(subdivisionFromProxy('GB-ENG', 'GB', 'x-subdivision')).toBe('ENG');
    expect(subdivisionFromProxy('JP-13', 'JP', 'x-subdivision')).toBe('13');
  });

  it('knows none when the header is empty', () => {
    expect(subdivisionFromProxy('  ', 'US', 'cf-region-code')).toBeUndefined();
  });

  it.each([
    ['Texas', 'US'],
    ['CA-ON', 'US'],
    ['US-', 'US'],
    ['TX,NY', 'US'],
  ])('refuses %p for a customer in %s, naming the header', (value, country) => {
    expect(() => subdivisionFromProxy(value, country, 'cf-region-code')).toThrow(/cf-region-code must be an ISO 3166-2 subdivision of US/);
  });
});
