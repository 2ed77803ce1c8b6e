import {
  ASSUMED_NATIVE_PRICE_USDC,
  DEFAULT_DUST_THRESHOLD,
  PAYOUT_LEG_RELAY_GAS,
  PAYOUT_RELAY_GAS,
  payoutGasCheck,
  relayCostInUsdc,
  splitDeposit,
  type RelayGasPrice,
} from '../src';

const gwei = (value: bigint) => value * 10n ** 9n;
const at200Gwei: RelayGasPrice = { gasPriceWei: gwei(200n), nativePriceUsdc: ASSUMED_NATIVE_PRICE_USDC };

describe('a payout earns the gateway its gas, or it is held', () => {
  it('reckons each leg at the costliest leg measured', () => {
    expect(PAYOUT_LEG_RELAY_GAS * 3n).toBeGreaterThanOrEqual(PAYOUT_RELAY_GAS);
    // Two legs at 200 gwei and 0.50 USDC/POL: 178,386 gas × 200 gwei = 0.0356772 POL = 0.0178386 USDC.
    expect(payoutGasCheck(splitDeposit(10_000_000n, 100).legs, at200Gwei).gasCostUsdc).toBe(17_839n);
  });

  it("holds the review's case: a deposit at the dust threshold earns 0.0003 USDC and costs ~0.018", () => {
    const check = payoutGasCheck(splitDeposit(DEFAULT_DUST_THRESHOLD, 100).legs, at200Gwei);
    expect(check).toEqual({ gasCostUsdc: 17_839n, earnedUsdc: 300n, covered: false });
  });

  it('pays once the platform leg is worth the gas, exactly at it too', () => {
    // 1% must reach 17,839 base units: 1,783,900 base units (1.7839 USDC) and more.
    expect(payoutGasCheck(splitDeposit(1_783_899n, 100).legs, at200Gwei).covered).toBe(false);
    expect(payoutGasCheck(splitDeposit(1_783_900n, 100).legs, at200Gwei)).toEqual({
      gasCostUsdc: 17_839n,
      earnedUsdc: 17_839n,
      covered: true,
    });
  });

  it('counts only what the gateway keeps: an affiliate leg adds gas, not earnings', () => {
    const withAffiliate = payoutGasCheck(splitDeposit(1_783_900n, 100, 9_800).legs, at200Gwei);
    expect(withAffiliate).toEqual({
      gasCostUsdc: relayCostInUsdc(3n * PAYOUT_LEG_RELAY_GAS, gwei(200n), ASSUMED_NATIVE_PRICE_USDC),
      earnedUsdc: 17_839n,
      covered: false,
    });
  });

  it('never covers a payout that earns nothing (no platform fee), whatever the amount', () => {
    expect(payoutGasCheck(splitDeposit(1_000_000_000n, 0).legs, at200Gwei)).toMatchObject({ earnedUsdc: 0n, covered: false });
  });

  it('follows the gas price: cheap gas pays small deposits', () => {
    const cheap = { gasPriceWei: gwei(30n), nativePriceUsdc: 250_000n };
    // 178,386 gas × 30 gwei × 0.25 = 0.001337895 USDC → 1,338 base units: 1% of 0.1338 USDC.
    expect(payoutGasCheck(splitDeposit(133_800n, 100).legs, cheap)).toEqual({ gasCostUsdc: 1_338n, earnedUsdc: 1_338n, covered: true });
    expect(payoutGasCheck(splitDeposit(133_700n, 100).legs, cheap).covered).toBe(false);
  });
});
