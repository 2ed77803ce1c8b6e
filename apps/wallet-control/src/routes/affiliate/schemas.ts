import { Type } from '@sinclair/typebox';
import { createWalletQuery } from '../control/schemas';

const affiliate = Type.String({
  description:
    "the affiliate's own USDC wallet on Polygon, paid its share of every payment into this wallet: 0x followed by 40 hex characters " +
    '(EIP-55 checksum if mixed case); not the payout address',
  examples: ['0x8ba1f109551bD432803012645Ac136ddd64DBA72'],
});

const signature = Type.Optional(
  Type.String({
    description:
      "the payout address owner's consent to these terms: its EIP-191 personal_sign (0x and 130 hex characters) of the message " +
      'the README ' +
      "gives (purpose, payout, affiliate, merchant_fee, affiliate_fee, callback exactly as registered; the SDK's " +
      'affiliateConsentMessage and ' +
      'signAffiliateConsent make it). Not needed for an affiliate the operator listed in AFFILIATE_ADDRESSES; without either: 403 ' +
      'affiliate_consent_required',
    examples: [`0x${'ab'.repeat(65)}`],
  }),
);

export const affiliateWalletQuery = Type.Object({
  ...createWalletQuery.properties,
  affiliate,
  signature,
});

export const customAffiliateWalletQuery = Type.Object({
  ...createWalletQuery.properties,
  affiliate,
  affiliate_fee: Type.String({
    description:
      "the affiliate's share of each payment as a decimal fraction between 0 and 1 with at most 4 decimals (0.01 = 1%); merchant_fee " +
      '+ affiliate_fee must equal 1 minus the platform fee (0.99 by default)',
    examples: ['0.01'],
  }),
  merchant_fee: Type.String({
    description:
      "the payout wallet's share of each payment as a decimal fraction between 0 and 1 with at most 4 decimals, more than 0 (a " +
      'wallet always has a merchant leg); ' +
      'merchant_fee + affiliate_fee must equal 1 minus the platform fee (0.99 by default)',
    examples: ['0.98'],
  }),
  signature,
});
