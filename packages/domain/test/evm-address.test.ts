import { parsePayoutAddress, looksLikeEvmAddress } from '../src/evm-address';

const token = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' as const;
const rules = { tokenAddress: token };
const checksummed = '0x52908400098527886E0F7030069857D2E4169EE7';

describe('parsePayoutAddress', () => {
  it('accepts a correct checksum and all-lower / all-upper hex', () => {
    expect(parsePayoutAddress(checksummed, rules)).toBe(checksummed);
    expect(parsePayoutAddress(checksummed.toLowerCase(), rules)).toBe(checksummed);
    expect(parsePayoutAddress(`0x${checksummed.slice(2).toUpperCase()}`, rules)).toBe(checksummed);
    // This checksum has lower-case letters, so its all-upper spelling claims no checksum either.
    const other = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
    expect(parsePayoutAddress(`0x${other.slice(2).toUpperCase()}`, rules)).toBe(other);
  });
  it('refuses a broken checksum', () => {
    const broken = checksummed.replace('E0F', 'e0F');
    expect(() => parsePayoutAddress(broken, rules)).toThrow(/EIP-55/);
  });
  it.each(['0x123', '52908400098527886E0F7030069857D2E4169EE7', '0xZZ908400098527886E0F7030069857D2E4169EE7', ''])(
    'refuses the malformed %p',
    (input) => expect(() => parsePayoutAddress(input, rules)).toThrow(/40 hexadecimal/),
  );
  it('refuses the zero address and the token contract', () => {
    expect(() => parsePayoutAddress('0x0000000000000000000000000000000000000000', rules)).toThrow(/zero address/);
    expect(() => parsePayoutAddress(token.toLowerCase(), rules)).toThrow(/token contract/);
  });
  it('recognises raw addresses for the address_in check', () => {
    expect(looksLikeEvmAddress(checksummed)).toBe(true);
    expect(looksLikeEvmAddress('0x12')).toBe(true);
    expect(looksLikeEvmAddress('k1.abc')).toBe(false);
  });
});
