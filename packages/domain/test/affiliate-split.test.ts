import {
  affiliateTermsConflict,
  affiliateTermsOf,
  formatFeeFraction,
  parseAffiliateWalletRequest,
  parseCustomAffiliateWalletRequest,
  parseFeeFraction,
  sameAffiliateTerms,
  type AffiliateTerms,
} from '../src/affiliate-terms';
import { BASIS_POINTS_SCALE, splitDeposit, splitWalletDeposit, walletPlatformFeeBps, type WalletSplitTerms } from '../src/fee-split';
import type { EvmAddress } from '../src/evm-address';
import { GatewayError } from '../src/errors';

const USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' as EvmAddress;
const payout = '0x52908400098527886E0F7030069857D2E4169EE7';
const affiliate = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const callback = 'https://shop.io/ipn?order_id=1';
const rules = { tokenAddress: USDC, allowTestDomains: false, platformFeeBps: 100 };

function errorOf(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

/** xorshift64*: seeded, so a failing case can be reproduced. */
function randomSource(seed: bigint): () => bigint {
  let state = seed;
  return () => {
    state ^= state >> 12n;
    state ^= (state << 25n) & 0xffff_ffff_ffff_ffffn;
    state ^= state >> 27n;
    return (state * 0x2545f4914f6cdd1dn) & 0xffff_ffff_ffff_ffffn;
  };
}

describe('parseFeeFraction: a fraction of the payment as exact basis points', () => {
  it.each([
    ['0', 0],
    ['1', 10_000],
    ['1.0', 10_000],
    ['0.99', 9_900],
    ['0.98', 9_800],
    ['0.01', 100],
    ['0.0001', 1],
    ['0.0125', 125],
    ['0.9875', 9_875],
    ['0.29', 2_900], // 0.29 * 10000 is 2899.9999999999995 in floating point
    ['0.57', 5_700], // and 5699.999999999999
    ['0.012500', 125], // zeros past the 4th decimal add no precision
  ])('%s → %d', (input, bps) => {
    expect(parseFeeFraction(input, 'affiliate_fee')).toBe(bps);
  });

  it.each([
    ['0.00125', /more than 4 decimals/],
    ['0.12345', /more than 4 decimals/],
    ['1.0001', /between 0 and 1/],
    ['2', /between 0 and 1/],
    ['-0.01', /plain decimal fraction/],
    ['+0.01', /plain decimal fraction/],
    ['.01', /plain decimal fraction/],
    ['0,01', /plain decimal fraction/],
    ['1e-2', /plain decimal fraction/],
    ['1%', /plain decimal fraction/],
    ['NaN', /plain decimal fraction/],
    ['', /plain decimal fraction/],
    [' 0.01', /plain decimal fraction/],
    ['0.01 ', /plain decimal fraction/],
    [`0.${'0'.repeat(40)}1`, /plain decimal fraction/],
  ])('refuses %p', (input, message) => {
    const error = errorOf(() => parseFeeFraction(input, 'merchant_fee'));
    expect(error.code).toBe('invalid_parameter');
    expect(error.param).toBe('merchant_fee');
    expect(error.message).toMatch(message);
  });

  it('tells a number above 1 apart from one that is not a plain decimal', () => {
    for (const input of ['10', '100.5', '999']) {
      expect(errorOf(() => parseFeeFraction(input, 'merchant_fee')).message).toBe(
        'merchant_fee must be between 0 and 1 (a fraction of the payment, 0.01 = 1%)',
      );
    }
  });

  it('quotes the refused input, cut at 40 characters', () => {
    const message = (input: string) => errorOf(() => parseFeeFraction(input, 'merchant_fee')).message;
    const forty = `${'x'.repeat(39)}%`;
    expect(message(forty)).toBe(
      `merchant_fee must be a plain decimal fraction between 0 and 1 with at most 4 decimals, e.g. 0.01 for 1% (got "${forty}")`,
    );
    expect(message(`${forty}y`)).toBe(
      `merchant_fee must be a plain decimal fraction between 0 and 1 with at most 4 decimals, e.g. 0.01 for 1% (got "${forty}…")`,
    );
  });

  it('formats basis points back as the API writes them', () => {
    expect([0, 1, 100, 125, 9_900, 9_875, 10_000].map(formatFeeFraction)).toEqual(['0', '0.0001', '0.01', '0.0125', '0.99', '0.9875', '1']);
    for (let bps = 0; bps <= BASIS_POINTS_SCALE; bps += 1) {
      if (parseFeeFraction(formatFeeFraction(bps), 'x') !== bps) throw new Error(`round trip of ${bps}`);
    }
  });
});

describe('parseCustomAffiliateWalletRequest', () => {
  const query = { address: payout, callback, affiliate, affiliate_fee: '0.01', merchant_fee: '0.98' };

  it('reads the split into basis points and checksums the affiliate', () => {
    const request = parseCustomAffiliateWalletRequest({ ...query, affiliate: affiliate.toLowerCase() }, rules);
    expect(request.payoutAddress).toBe(payout);
    expect(request.affiliate).toEqual({ kind: 'custom', address: affiliate, affiliateFeeBps: 100, merchantFeeBps: 9_800 });
  });

  it('accepts any split that leaves exactly the platform fee, including 0 for one side', () => {
    expect(parseCustomAffiliateWalletRequest({ ...query, affiliate_fee: '0', merchant_fee: '0.99' }, rules).affiliate).toMatchObject({
      affiliateFeeBps: 0,
      merchantFeeBps: 9_900,
    });
    expect(parseCustomAffiliateWalletRequest({ ...query, affiliate_fee: '0.0001', merchant_fee: '0.9899' }, rules).affiliate).toMatchObject(
      { affiliateFeeBps: 1 },
    );
    // Another platform fee moves the target.
    expect(
      parseCustomAffiliateWalletRequest({ ...query, affiliate_fee: '0.02', merchant_fee: '0.98' }, { ...rules, platformFeeBps: 0 })
        .affiliate,
    ).toMatchObject({ merchantFeeBps: 9_800 });
  });

  it.each([
    [
      'a split adding up to 1',
      { affiliate_fee: '0.02', merchant_fee: '0.98' },
      'merchant_fee',
      /^merchant_fee \+ affiliate_fee must equal 0\.99 \(1 minus the platform fee of 0\.01\); got 0\.98 \+ 0\.02 = 1$/,
    ],
    ['a split adding up to less', { affiliate_fee: '0.01', merchant_fee: '0.97' }, 'merchant_fee', /must equal 0\.99/],
    [
      'no merchant leg',
      { affiliate_fee: '0.99', merchant_fee: '0' },
      'merchant_fee',
      /more than 0: .*merchant leg.*arrived\. Give the payout address a share \(e\.g\. merchant_fee=0\.98&affiliate_fee=0\.01\)$/,
    ],
    ['no merchant leg, trailing zeros', { affiliate_fee: '0.99', merchant_fee: '0.0000' }, 'merchant_fee', /more than 0/],
    ['percentages', { affiliate_fee: '1', merchant_fee: '98' }, 'merchant_fee', /between 0 and 1/],
    ['more than 4 decimals', { affiliate_fee: '0.00995', merchant_fee: '0.98005' }, 'affiliate_fee', /more than 4 decimals/],
    ['the payout address as affiliate', { affiliate: payout.toLowerCase() }, 'affiliate', /must differ from address/],
    ['a bad affiliate checksum', { affiliate: affiliate.replace('bD4', 'bd4') }, 'affiliate', /EIP-55/],
    ['a short affiliate', { affiliate: '0x1234' }, 'affiliate', /40 hexadecimal/],
    ['the zero address as affiliate', { affiliate: `0x${'0'.repeat(40)}` }, 'affiliate', /zero address/],
    ['the token contract as affiliate', { affiliate: USDC }, 'affiliate', /token contract/],
    ['a bad payout address first', { address: '0x12', affiliate: '0x34' }, 'address', /40 hexadecimal/],
  ])('refuses %s', (_name, change, param, message) => {
    const error = errorOf(() => parseCustomAffiliateWalletRequest({ ...query, ...change }, rules));
    expect(error).toMatchObject({ code: 'invalid_parameter', param, statusCode: 400 });
    expect(error.message).toMatch(message);
  });
});

describe('parseAffiliateWalletRequest', () => {
  it('gives the affiliate the configured share', () => {
    const request = parseAffiliateWalletRequest({ address: payout, callback, affiliate }, { ...rules, affiliateShareBps: 50 });
    expect(request.affiliate).toEqual({ kind: 'configured', address: affiliate, affiliateFeeBps: 50 });
  });

  it('refuses the payout address as affiliate, in any case', () => {
    const error = errorOf(() =>
      parseAffiliateWalletRequest(
        { address: payout, callback, affiliate: payout.toUpperCase().replace('0X', '0x') },
        { ...rules, affiliateShareBps: 50 },
      ),
    );
    expect(error).toMatchObject({ param: 'affiliate' });
  });
});

describe('affiliate terms of an existing wallet', () => {
  const configured: AffiliateTerms = { kind: 'configured', address: affiliate as EvmAddress, affiliateFeeBps: 50 };
  const custom: AffiliateTerms = { kind: 'custom', address: affiliate as EvmAddress, affiliateFeeBps: 100, merchantFeeBps: 9_800 };

  it('reads them back from the row', () => {
    expect(affiliateTermsOf({ affiliateAddress: null, affiliateFeeBps: null, merchantFeeBps: null })).toBeNull();
    expect(affiliateTermsOf({ affiliateAddress: affiliate.toLowerCase(), affiliateFeeBps: 50, merchantFeeBps: null })).toMatchObject({
      kind: 'configured',
      affiliateFeeBps: 50,
    });
    expect(affiliateTermsOf({ affiliateAddress: affiliate.toLowerCase(), affiliateFeeBps: 100, merchantFeeBps: 9_800 })).toMatchObject({
      kind: 'custom',
      merchantFeeBps: 9_800,
    });
  });

  it('are the same only for the same kind, affiliate (any case) and split', () => {
    const lower = { ...custom, address: affiliate.toLowerCase() as EvmAddress };
    expect(sameAffiliateTerms(null, null)).toBe(true);
    expect(sameAffiliateTerms(custom, lower)).toBe(true);
    // A configured share changed by the operator since does not make a repeat of affiliate.php a conflict.
    expect(sameAffiliateTerms(configured, { ...configured, affiliateFeeBps: 75 })).toBe(true);
    expect(sameAffiliateTerms(null, configured)).toBe(false);
    expect(sameAffiliateTerms(configured, null)).toBe(false);
    expect(sameAffiliateTerms(configured, { ...custom, affiliateFeeBps: 50, merchantFeeBps: 9_850 })).toBe(false);
    expect(sameAffiliateTerms(custom, { ...custom, affiliateFeeBps: 200, merchantFeeBps: 9_700 })).toBe(false);
    expect(sameAffiliateTerms(custom, { ...custom, address: payout as EvmAddress })).toBe(false);
    // Either side of a custom split alone makes it another split.
    expect(sameAffiliateTerms(custom, { ...custom, affiliateFeeBps: 200 })).toBe(false);
    expect(sameAffiliateTerms(custom, { ...custom, merchantFeeBps: 9_700 })).toBe(false);
  });

  it('a conflict is a 409 that says what the wallet has', () => {
    expect(affiliateTermsConflict(null)).toMatchObject({ code: 'conflict', statusCode: 409, param: 'callback' });
    expect(affiliateTermsConflict(null).message).toMatch(/no affiliate .*wallet\.php/);
    expect(affiliateTermsConflict(custom).message).toMatch(
      /with the custom split merchant_fee=0\.98, affiliate_fee=0\.01 for 0x8ba1f109551bD432803012645Ac136ddd64DBA72 \(it was created by custom-affiliate\.php\); its split/,
    );
    expect(affiliateTermsConflict({ ...configured, address: affiliate.toLowerCase() as EvmAddress }).message).toBe(
      `a wallet for this address and callback already exists with the configured affiliate share for ${affiliate} (it was created by ` +
        `affiliate.php); ` +
        'its split never changes once payments could arrive. Repeat the original request, or use a callback URL on another path ' +
        'for a wallet with other terms ' +
        '(with CALLBACK_OWNERSHIP=path, every wallet on one callback origin and path has the terms of the first)',
    );
  });
});

describe('splitting a deposit into a custom-split wallet', () => {
  // What Create Wallet records on the wallet when PLATFORM_FEE_BPS is `configured`; settlement splits by that.
  const recorded = (terms: WalletSplitTerms, configured: number) => ({
    platformFeeBps: walletPlatformFeeBps(terms, configured),
    affiliateFeeBps: terms.affiliateFeeBps,
  });

  it('pays merchant_fee, affiliate_fee and the platform the rest, whatever the configured fee is now', () => {
    const terms = { affiliateFeeBps: 100, merchantFeeBps: 9_800 };
    for (const configured of [0, 100, 250]) {
      expect(walletPlatformFeeBps(terms, configured)).toBe(100);
      expect(splitWalletDeposit(10_000_000n, recorded(terms, configured)).legs).toEqual([
        { kind: 'merchant', amount: 9_800_000n },
        { kind: 'platform', amount: 100_000n },
        { kind: 'affiliate', amount: 100_000n },
      ]);
    }
  });

  it('records the configured platform fee on wallets without a custom split', () => {
    expect(splitWalletDeposit(10_000_000n, recorded({ affiliateFeeBps: null, merchantFeeBps: null }, 100))).toEqual(
      splitDeposit(10_000_000n, 100),
    );
    expect(splitWalletDeposit(10_000_000n, recorded({ affiliateFeeBps: 50, merchantFeeBps: null }, 250))).toEqual(
      splitDeposit(10_000_000n, 250, 50),
    );
  });

  it('rounds the merchant up, the affiliate down, and gives the platform the odd unit', () => {
    // 12.345679 USDC at 97.75% / 1.25% / 1%: 12067901.2225 → 12067902, 154320.9875 → 154320, 123456.79 → 123457.
    expect(splitWalletDeposit(12_345_679n, recorded({ affiliateFeeBps: 125, merchantFeeBps: 9_775 }, 100))).toMatchObject({
      merchant: 12_067_902n,
      affiliateFee: 154_320n,
      platformFee: 123_457n,
      totalFee: 277_777n,
    });
    // One base unit: the merchant's 0.9775 rounds up to all of it.
    expect(splitWalletDeposit(1n, recorded({ affiliateFeeBps: 125, merchantFeeBps: 9_775 }, 100)).legs).toEqual([
      { kind: 'merchant', amount: 1n },
    ]);
  });

  it('refuses a recorded split over 100%, or a merchant share that is not basis points, naming it', () => {
    expect(() => walletPlatformFeeBps({ affiliateFeeBps: 300, merchantFeeBps: 9_800 }, 100)).toThrow(
      new RangeError('merchant (9800) and affiliate (300) shares together exceed 100%'),
    );
    expect(() => walletPlatformFeeBps({ affiliateFeeBps: 0, merchantFeeBps: 10_001 }, 100)).toThrow(
      /^merchantFeeBps must be an integer number of basis points/,
    );
  });

  it('is exact for every split and amount: merchant = ceil(A·m/S), affiliate = floor(A·a/S), platform the rest (within one unit of its share)', () => {
    const next = randomSource(0x5eed_a11_f00dn);
    const S = BigInt(BASIS_POINTS_SCALE);
    const broken: string[] = [];
    const check = (amount: bigint, merchant: number, affiliateShare: number) => {
      const split = splitWalletDeposit(amount, recorded({ affiliateFeeBps: affiliateShare, merchantFeeBps: merchant }, 100));
      const platform = BASIS_POINTS_SCALE - merchant - affiliateShare;
      const m = BigInt(merchant);
      const a = BigInt(affiliateShare);
      const p = BigInt(platform);
      const ok =
        split.merchant + split.affiliateFee + split.platformFee === amount &&
        split.legs.reduce((sum, leg) => sum + leg.amount, 0n) === amount &&
        split.legs.every((leg) => leg.amount > 0n) &&
        split.merchant === (amount * m + S - 1n) / S &&
        split.affiliateFee === (amount * a) / S &&
        split.platformFee * S > amount * p - S &&
        split.platformFee * S < amount * p + S &&
        split.totalFee === split.platformFee + split.affiliateFee;
      if (!ok) broken.push(`${amount} m=${merchant} a=${affiliateShare}`);
    };
    // Every split with a platform share of 0..100 bps over small amounts, where rounding bites most.
    for (let amount = 1n; amount <= 40n; amount += 1n) {
      for (let platform = 0; platform <= 100; platform += 7) {
        for (let affiliateShare = 0; affiliateShare <= BASIS_POINTS_SCALE - platform; affiliateShare += 97) {
          check(amount, BASIS_POINTS_SCALE - platform - affiliateShare, affiliateShare);
        }
      }
    }
    // Random amounts up to 10^15 USDC and random splits.
    for (let i = 0; i < 20_000; i += 1) {
      const amount = 1n + (next() % 10n ** 21n);
      const platform = Number(next() % BigInt(BASIS_POINTS_SCALE + 1));
      const affiliateShare = Number(next() % BigInt(BASIS_POINTS_SCALE - platform + 1));
      check(amount, BASIS_POINTS_SCALE - platform - affiliateShare, affiliateShare);
    }
    expect(broken.slice(0, 5)).toEqual([]);
  });
});
