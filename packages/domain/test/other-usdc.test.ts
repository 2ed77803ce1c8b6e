import {
  COIN_NAMES,
  coinOfToken,
  OTHER_USDC_FORWARD_REFUSAL,
  OTHER_USDC_NONE,
  defaultOtherUsdc,
  otherUsdcRefusal,
  POLYGON_BRIDGED_USDC,
  POLYGON_CHAIN_ID,
  POLYGON_NATIVE_USDC,
  WELL_KNOWN_TOKEN_CONTRACTS,
} from '../src';

const LOCAL_TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const LOCAL_SECOND = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';

describe('the other Polygon USDC', () => {
  it('names the two USDCs the token list knows', () => {
    const names = new Map(WELL_KNOWN_TOKEN_CONTRACTS.map((token) => [token.address, token.name]));
    expect(names.get(POLYGON_NATIVE_USDC)).toMatch(/native/);
    expect(names.get(POLYGON_BRIDGED_USDC)).toMatch(/USDC\.e/);
  });

  it('defaults, on Polygon PoS only, to the Polygon USDC the gateway does not settle', () => {
    expect(defaultOtherUsdc(POLYGON_CHAIN_ID, POLYGON_NATIVE_USDC.toLowerCase())).toBe(POLYGON_BRIDGED_USDC);
    expect(defaultOtherUsdc(POLYGON_CHAIN_ID, POLYGON_BRIDGED_USDC)).toBe(POLYGON_NATIVE_USDC);
    expect(defaultOtherUsdc(POLYGON_CHAIN_ID, LOCAL_TOKEN)).toBeUndefined();
    expect(defaultOtherUsdc(80_002, POLYGON_NATIVE_USDC)).toBeUndefined();
    expect(defaultOtherUsdc(31_337, LOCAL_TOKEN)).toBeUndefined();
  });

  it('refuses the settled token as the other one, in any case, anywhere', () => {
    for (const production of [true, false]) {
      expect(otherUsdcRefusal(31_337, LOCAL_TOKEN, LOCAL_TOKEN.toLowerCase(), production)).toMatch(/USDC_TOKEN_ADDRESS itself/);
      expect(otherUsdcRefusal(POLYGON_CHAIN_ID, POLYGON_NATIVE_USDC, POLYGON_NATIVE_USDC, production)).toMatch(/itself/);
    }
  });

  it('in production on Polygon PoS, accepts only the pair of Polygon USDCs', () => {
    expect(otherUsdcRefusal(POLYGON_CHAIN_ID, POLYGON_NATIVE_USDC, POLYGON_BRIDGED_USDC.toLowerCase(), true)).toBeUndefined();
    expect(otherUsdcRefusal(POLYGON_CHAIN_ID, POLYGON_BRIDGED_USDC, POLYGON_NATIVE_USDC, true)).toBeUndefined();
    expect(otherUsdcRefusal(POLYGON_CHAIN_ID, POLYGON_NATIVE_USDC, LOCAL_SECOND, true)).toBe(
      `on Polygon PoS the two USDCs are ${POLYGON_NATIVE_USDC} (native) and ${POLYGON_BRIDGED_USDC} (USDC.e); ` +
        'USDC_TOKEN_ADDRESS and OTHER_USDC_TOKEN_ADDRESS must be these two',
    );
    expect(otherUsdcRefusal(POLYGON_CHAIN_ID, LOCAL_TOKEN, POLYGON_BRIDGED_USDC, true)).toMatch(/must be these two/);
    // Elsewhere (a local chain, a test network, or outside production) any other contract may play it.
    expect(otherUsdcRefusal(POLYGON_CHAIN_ID, POLYGON_NATIVE_USDC, LOCAL_SECOND, false)).toBeUndefined();
    expect(otherUsdcRefusal(31_337, LOCAL_TOKEN, LOCAL_SECOND, true)).toBeUndefined();
  });

  it('names the setting that turns it off, the coins for a customer, and why forward is refused', () => {
    expect(OTHER_USDC_NONE).toBe('none');
    expect(COIN_NAMES).toEqual({ polygon_usdc: 'USDC', polygon_usdc_e: 'USDC.e' });
    expect(OTHER_USDC_FORWARD_REFUSAL).toBe(
      'forward is not built: the other USDC (USDC.e) signs transferWithAuthorization under another EIP-712 domain (a salt ' +
        'instead of chainId), which settlement does not sign; use hold (its deposits wait for the operator, see docs/settlement.md)',
    );
  });

  it('names a deposit polygon_usdc in the settled token (or a row without one), polygon_usdc_e in any other', () => {
    expect(coinOfToken(POLYGON_NATIVE_USDC.toLowerCase(), POLYGON_NATIVE_USDC)).toBe('polygon_usdc');
    expect(coinOfToken(null, POLYGON_NATIVE_USDC)).toBe('polygon_usdc');
    expect(coinOfToken(POLYGON_BRIDGED_USDC.toLowerCase(), POLYGON_NATIVE_USDC)).toBe('polygon_usdc_e');
    expect(coinOfToken(LOCAL_SECOND.toLowerCase(), LOCAL_TOKEN)).toBe('polygon_usdc_e');
  });
});
