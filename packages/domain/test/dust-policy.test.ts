import {
  ASSUMED_NATIVE_PRICE_USDC,
  ASSUMED_RELAY_GAS_PRICE_WEI,
  DEFAULT_DUST_THRESHOLD,
  PAYOUT_RELAY_GAS,
  payoutOfDeposit,
  receiptProgress,
  relayCostInUsdc,
  sweepOfHeldDust,
} from '../src';

describe('dust: a deposit is paid out with its wallet held dust', () => {
  const threshold = 10_000n;

  it('pays a deposit above the threshold alone when nothing is held', () => {
    expect(payoutOfDeposit(2_000_000n, [], threshold)).toEqual({ pay: true, payable: 2_000_000n });
  });

  it('adds every held deposit of the wallet to the next payout', () => {
    expect(payoutOfDeposit(10_000_000n, [4_000n], threshold)).toEqual({ pay: true, payable: 10_004_000n });
  });

  it('holds a dust deposit while the sum with what is held stays below the threshold', () => {
    expect(payoutOfDeposit(3_000n, [], threshold)).toEqual({ pay: false, payable: 3_000n });
    expect(payoutOfDeposit(4_000n, [3_000n], threshold)).toEqual({ pay: false, payable: 7_000n });
  });

  it('pays a dust deposit that lifts the sum to the threshold, exactly at it too', () => {
    expect(payoutOfDeposit(5_000n, [3_000n, 4_000n], threshold)).toEqual({ pay: true, payable: 12_000n });
    expect(payoutOfDeposit(6_000n, [4_000n], threshold)).toEqual({ pay: true, payable: 10_000n });
  });

  it('shows swept dust on the receipt page as sent to the merchant once the payout carrying it is', () => {
    const dust = { status: 'swept' as const, amount: 4_000n };
    expect(receiptProgress('paid', [dust, { status: 'forwarding', amount: 10_000_000n }])).toMatchObject({
      step: 'confirmed',
      final: false,
    });
    expect(receiptProgress('paid', [dust, { status: 'forwarded', amount: 10_000_000n }])).toMatchObject({
      step: 'sent_to_merchant',
      waitingOn: null,
      final: true,
      receivedUsdc: 10_004_000n,
    });
  });

  it('an operator sweep pays held dust that sums to the threshold, and a smaller sum only when forced', () => {
    expect(sweepOfHeldDust([6_000n, 7_000n], threshold, false)).toEqual({ pay: true, payable: 13_000n });
    expect(sweepOfHeldDust([3_000n], threshold, false)).toEqual({ pay: false, payable: 3_000n });
    expect(sweepOfHeldDust([3_000n], threshold, true)).toEqual({ pay: true, payable: 3_000n });
    expect(sweepOfHeldDust([], threshold, true)).toEqual({ pay: false, payable: 0n });
  });
});

describe('the default dust threshold', () => {
  it('converts gas at a gas price and a native coin price into USDC base units, rounding up', () => {
    // 100,000 gas at 30 gwei = 0.003 POL; at 0.25 USDC per POL that is 0.00075 USDC.
    expect(relayCostInUsdc(100_000n, 30n * 10n ** 9n, 250_000n)).toBe(750n);
    expect(relayCostInUsdc(1n, 1n, 1n)).toBe(1n);
  });

  it('is at least what relaying the costliest payout costs at the stated prices', () => {
    const cost = relayCostInUsdc(PAYOUT_RELAY_GAS, ASSUMED_RELAY_GAS_PRICE_WEI, ASSUMED_NATIVE_PRICE_USDC);
    expect(cost).toBe(26_274n);
    expect(DEFAULT_DUST_THRESHOLD).toBeGreaterThanOrEqual(cost);
    expect(DEFAULT_DUST_THRESHOLD).toBe(30_000n);
  });
});
