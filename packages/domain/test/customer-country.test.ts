import { countryFromProxy, isUserAssignedCountryCode } from '../src';

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
