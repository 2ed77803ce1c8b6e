import { type SettlementFixture, settlementFixtureForFile, USDC } from '../support/settlement-fixture';

jest.setTimeout(120_000);

let fixture: SettlementFixture;

settlementFixtureForFile('wallet-fee', (started) => (fixture = started));

describe('the platform fee a wallet pays is the one it recorded when it was created', () => {
  it('is not re-priced when PLATFORM_FEE_BPS changes afterwards: a wallet created at 1% pays 1% to a worker started with 2.5%', async () => {
    // The wallet as Create Wallet wrote it while the fee was 1% (the fixture records 100 bps).
    const wallet = await fixture.createWallet();
    // The operator then raises the fee; before this change the worker read it at settlement time.
    await fixture.startApp({ PLATFORM_FEE_BPS: '250' });
    const feeBefore = await fixture.usdcBalance(fixture.platformFeeAddress);
    await fixture.depositPaidOut(wallet, 10n * USDC);

    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(9_900_000n);
    expect((await fixture.usdcBalance(fixture.platformFeeAddress)) - feeBefore).toBe(100_000n);
  });

  it('pays whatever fee the wallet records, 0 included', async () => {
    await fixture.startApp();
    const at250 = await fixture.createWallet({ platformFeeBps: 250 });
    const free = await fixture.createWallet({ platformFeeBps: 0 });
    const [first, second] = [await fixture.deposit(at250, 10n * USDC), await fixture.deposit(free, 10n * USDC)];
    await fixture.enqueue(first.id);
    await fixture.waitForPaidOut(first.id);
    expect((await fixture.legsOf(first.id)).map((leg) => [leg.leg, leg.amount])).toEqual([
      ['merchant', '9750000'],
      ['platform', '250000'],
    ]);
    // A payout that earns the gateway nothing is held unless the operator pays its gas (gas-cost.test.ts).
    await fixture.stopApp();
    await fixture.startApp({ PAYOUT_BELOW_GAS_COST: 'pay' });
    await fixture.enqueue(second.id);
    await fixture.waitForPaidOut(second.id);
    expect((await fixture.legsOf(second.id)).map((leg) => [leg.leg, leg.amount])).toEqual([['merchant', '10000000']]);
    expect(await fixture.usdcBalance(free.payoutAddress)).toBe(10n * USDC);
  });
});
