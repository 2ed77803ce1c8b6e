import { Type } from '@sinclair/typebox';
import { createWalletQuery } from '../control/schemas';

export { errorBody, walletControlData } from '../control/schemas';

const affiliate = Type.String({
  description:
    "the affiliate's own USDC wallet on Polygon, paid its share of every payment into this wallet: 0x followed by 40 hex characters (EIP-55 checksum if mixed case); not the payout address",
  examples: ['0x8ba1f109551bD432803012645Ac136ddd64DBA72'],
});

export const affiliateWalletQuery = Type.Object({
  ...createWalletQuery.properties,
  affiliate,
});

export const customAffiliateWalletQuery = Type.Object({
  ...createWalletQuery.properties,
  affiliate,
  affiliate_fee: Type.String({
    description:
      "the affiliate's share of each payment as a decimal fraction between 0 and 1 with at most 4 decimals (0.01 = 1%); merchant_fee + affiliate_fee must equal 1 minus the platform fee (0.99 by default)",
    examples: ['0.01'],
  }),
  merchant_fee: Type.String({
    description:
      "the payout wallet's share of each payment as a decimal fraction between 0 and 1 with at most 4 decimals; merchant_fee + affiliate_fee must equal 1 minus the platform fee (0.99 by default)",
    examples: ['0.98'],
  }),
});
