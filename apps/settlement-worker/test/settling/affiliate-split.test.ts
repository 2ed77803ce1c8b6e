import { randomBytes, randomUUID } from 'node:crypto';
import type { Address } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { parseCustomAffiliateWalletRequest, walletPlatformFeeBps, type EvmAddress } from '@gateway/domain';
import { PaymentStatusRepository, WalletRepository } from '@gateway/db/wallet-control';
import { freshAddress, type SettlementFixture, settlementAppForFile, USDC, type TestWallet } from '../support/settlement-fixture';
import { PUBLIC_TEST_MNEMONIC } from '@gateway/chain';

jest.setTimeout(120_000);

let fixture: SettlementFixture;
// Above the fixture's own wallets (from 100) and far from anvil's funded accounts (0-9).
let nextHdIndex = 500;

settlementAppForFile('affsplit', (started) => (fixture = started));

interface CustomWallet extends TestWallet {
  affiliate: Address;
  ipnToken: string;
}

/**
 * A wallet created the way custom-affiliate.php creates it: the query parsed by the domain rule
 * (against the platform fee wallet-control was configured with at the time), written by the
 * wallet repository with the platform's share it leaves.
 */
async function customAffiliateWallet(
  split: { affiliate_fee: string; merchant_fee: string },
  platformFeeBpsAtCreation = 100,
): Promise<CustomWallet> {
  const hdIndex = nextHdIndex++;
  const address = mnemonicToAccount(PUBLIC_TEST_MNEMONIC, { addressIndex: hdIndex }).address;
  const payoutAddress = freshAddress();
  const affiliate = freshAddress();
  const request = parseCustomAffiliateWalletRequest(
    { address: payoutAddress, callback: `https://shop.io/ipn?order_id=${hdIndex}`, affiliate, ...split },
    { tokenAddress: fixture.token as EvmAddress, allowTestDomains: false, platformFeeBps: platformFeeBpsAtCreation },
  );
  if (request.affiliate.kind !== 'custom') throw new Error('expected a custom split');
  const ipnToken = randomBytes(24).toString('base64url');
  const [result] = await new WalletRepository(fixture.db.pool).createOrGetMany([
    {
      hdIndex: BigInt(hdIndex),
      keyFingerprint: 'a1b2c3d4',
      polygonAddress: address,
      addressIn: `sealed-${randomUUID()}`,
      payoutAddress: request.payoutAddress,
      callbackUrl: request.callbackUrl,
      dedupeKey: request.dedupeKey,
      ipnToken,
      affiliate: {
        affiliateAddress: request.affiliate.address,
        affiliateFeeBps: request.affiliate.affiliateFeeBps,
        merchantFeeBps: request.affiliate.merchantFeeBps,
      },
      platformFeeBps: walletPlatformFeeBps(request.affiliate, platformFeeBpsAtCreation),
    },
  ]);
  if (!result || !('created' in result) || !result.created) throw new Error('wallet not created');
  const { rows } = await fixture.db.pool.query<{ id: string }>('SELECT id::text FROM wallets WHERE ipn_token = $1', [ipnToken]);
  return { id: rows[0]!.id, hdIndex, address, payoutAddress, affiliate, ipnToken };
}

describe('settlement of a deposit into a custom affiliate split wallet', () => {
  it('pays merchant_fee, affiliate_fee and the platform the rest, exactly to the base unit, on chain', async () => {
    // merchant_fee 0.9775 + affiliate_fee 0.0125 = 0.99; the platform keeps 0.01.
    const wallet = await customAffiliateWallet({ affiliate_fee: '0.0125', merchant_fee: '0.9775' });
    const platformBefore = await fixture.usdcBalance(fixture.platformFeeAddress);
    const deposit = await fixture.depositPaidOut(wallet, 12_345_679n);

    // merchant ceil(12345679 × 0.9775) = ceil(12067901.2225); affiliate floor(12345679 × 0.0125) = floor(154320.9875);
    // the platform the rest: 123457 (its exact share is 123456.79).
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(12_067_902n);
    expect(await fixture.usdcBalance(wallet.affiliate)).toBe(154_320n);
    expect((await fixture.usdcBalance(fixture.platformFeeAddress)) - platformBefore).toBe(123_457n);
    expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
    expect(await fixture.nativeBalance(wallet.address)).toBe(0n);

    const legs = await fixture.legsOf(deposit.id);
    expect(legs.map((leg) => [leg.leg, leg.to_address, leg.amount, leg.status])).toEqual([
      ['merchant', wallet.payoutAddress.toLowerCase(), '12067902', 'confirmed'],
      ['platform', fixture.platformFeeAddress.toLowerCase(), '123457', 'confirmed'],
      ['affiliate', wallet.affiliate.toLowerCase(), '154320', 'confirmed'],
    ]);
    expect((await fixture.deliveryOf(deposit.id))[0]).toMatchObject({
      value_coin: '12345679',
      value_forwarded_coin: '12067902',
      fee_coin: '277777',
      txid_in: deposit.txHash,
      txid_out: legs[0]!.tx_hash,
    });

    // Check Payment Status reads the same amounts back.
    const status = await new PaymentStatusRepository(fixture.db.pool).findByIpnToken(wallet.ipnToken);
    expect(status?.forwarded).toEqual({ count: 1, valueCoin: 12_345_679n, valueForwardedCoin: 12_067_902n, feeCoin: 277_777n });
    expect(status?.latestForwarded).toEqual({ txidIn: deposit.txHash, txidOut: legs[0]!.tx_hash });
  });

  it('keeps the split the wallet was created with when the platform fee changes later', async () => {
    // Created when the platform fee was 0.5% (0.985 + 0.01); wallets created now pay 1%.
    const wallet = await customAffiliateWallet({ affiliate_fee: '0.01', merchant_fee: '0.985' }, 50);
    const platformBefore = await fixture.usdcBalance(fixture.platformFeeAddress);
    await fixture.depositPaidOut(wallet, 10n * USDC);

    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(9_850_000n);
    expect(await fixture.usdcBalance(wallet.affiliate)).toBe(100_000n);
    expect((await fixture.usdcBalance(fixture.platformFeeAddress)) - platformBefore).toBe(50_000n);
    expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
  });

  it('sends no leg for a share of zero: affiliate_fee 0 pays two addresses', async () => {
    const wallet = await customAffiliateWallet({ affiliate_fee: '0', merchant_fee: '0.99' });
    const deposit = await fixture.depositPaidOut(wallet, 3n * USDC);

    expect((await fixture.legsOf(deposit.id)).map((leg) => [leg.leg, leg.amount])).toEqual([
      ['merchant', '2970000'],
      ['platform', '30000'],
    ]);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(2_970_000n);
    expect(await fixture.usdcBalance(wallet.affiliate)).toBe(0n);
  });
});
