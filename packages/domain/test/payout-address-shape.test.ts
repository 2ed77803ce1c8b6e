import { GatewayError } from '../src/errors';
import { looksLikeEvmAddress, parsePayoutAddress } from '../src/evm-address';

// The shape of an address, edge by edge: nothing may stand before "0x" or after the 40th hex
// digit, and each refusal is the named 400, never a crash (found by mutation testing: `pnpm mutate`).

const token = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' as const;
const lower = '0x52908400098527886e0f7030069857d2e4169ee7';

describe('parsePayoutAddress refuses anything around the 40 hex digits', () => {
  it.each([` ${lower}`, `${lower} `, `x${lower}`, `${lower}0`, `${lower}\n`, lower.slice(0, -1), `00${lower.slice(2)}`])('%p', (input) => {
    let refusal: unknown;
    try {
      parsePayoutAddress(input, { tokenAddress: token });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(GatewayError);
    expect(refusal).toMatchObject({
      param: 'address',
      message: 'address must be a Polygon wallet address: 0x followed by 40 hexadecimal characters',
    });
  });

  it('accepts all-upper hex as no checksum claimed, and checks a mixed-case one', () => {
    expect(parsePayoutAddress(`0x${lower.slice(2).toUpperCase()}`, { tokenAddress: token })).toBe(
      '0x52908400098527886E0F7030069857D2E4169EE7',
    );
    expect(() => parsePayoutAddress('0x52908400098527886E0F7030069857D2E4169Ee7', { tokenAddress: token })).toThrow(/EIP-55 checksum/);
  });
});

describe('looksLikeEvmAddress (telling an address from an address_in token)', () => {
  it.each([
    ['0x12', true],
    ['  0x12  ', true],
    ['0X12', true],
    ['0x1', false],
    [' 0x1 ', false],
    ['x0x12', false],
    ['0x12g', false],
    ['', false],
  ])('%p → %p', (input, looks) => {
    expect(looksLikeEvmAddress(input)).toBe(looks);
  });
});
