import { checkHandPayout, handPayoutAmounts, type HandPayoutDeposit, type TokenTransfer } from '../src/hand-payout';

const TOKEN = '0x2791bca1f2de4661ed88a30c99a7a9449aa84174';
const SETTLED = '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359';
const WALLET = '0x00000000000000000000000000000000000000aa';
const PAYOUT = '0x00000000000000000000000000000000000000bb';
const STRANGER = '0x00000000000000000000000000000000000000cc';

// 12.5 USDC.e into a wallet at 1 % platform fee and 0.5 % affiliate: the merchant's share is 12.3125.
const deposit: HandPayoutDeposit = {
  token: TOKEN,
  amount: 12_500_000n,
  temporaryAddress: WALLET,
  payoutAddress: PAYOUT,
  terms: { platformFeeBps: 100, affiliateFeeBps: 50 },
};
const transfer = (overrides: Partial<TokenTransfer> = {}): TokenTransfer => ({
  token: TOKEN,
  from: WALLET,
  to: PAYOUT,
  value: 12_312_500n,
  logIndex: 3,
  ...overrides,
});

describe('checkHandPayout', () => {
  it("takes the merchant's share as settlement splits it, or the whole deposit", () => {
    expect(handPayoutAmounts(deposit)).toEqual({ merchantShare: 12_312_500n, whole: 12_500_000n });
    expect(checkHandPayout(deposit, [transfer()])).toEqual({ result: 'matches', transfer: transfer(), paid: 'merchant_share' });
    const whole = transfer({ value: 12_500_000n });
    expect(checkHandPayout(deposit, [whole])).toEqual({ result: 'matches', transfer: whole, paid: 'whole_deposit' });
  });

  it('compares addresses whatever their case, and finds the transfer among others of the transaction', () => {
    const gas = transfer({ token: SETTLED, value: 1n, logIndex: 0 });
    const checksummed = transfer({ token: TOKEN.toUpperCase().replace('0X', '0x'), to: PAYOUT.toUpperCase().replace('0X', '0x') });
    expect(checkHandPayout(deposit, [gas, checksummed])).toMatchObject({ result: 'matches', transfer: { logIndex: 3 } });
  });

  it.each<[string, TokenTransfer[], RegExp]>([
    ['no transfer at all', [], /moves none of the deposit's token/],
    ['another token (the settled USDC)', [transfer({ token: SETTLED })], /moves none of the deposit's token/],
    ['from another wallet (not one of ours)', [transfer({ from: STRANGER })], /comes from the deposit's temporary wallet/],
    ['to another address', [transfer({ to: STRANGER })], new RegExp(`pays ${STRANGER}, not the wallet's payout address ${PAYOUT}`)],
    [
      'a part of the share',
      [transfer({ value: 12_000_000n })],
      /pays 12 to the payout address, neither the merchant's share \(12\.3125\) nor the whole deposit \(12\.5\)/,
    ],
    ['more than the deposit', [transfer({ value: 13_000_000n })], /neither the merchant's share/],
  ])('refuses %s, saying why', (_case, transfers, reason) => {
    const check = checkHandPayout(deposit, transfers);
    expect(check.result).toBe('refused');
    expect(check.result === 'refused' && check.reason).toMatch(reason);
  });
});
