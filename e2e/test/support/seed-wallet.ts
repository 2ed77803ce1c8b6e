// A wallet as Create Wallet would have recorded it, for the e2e tests that run payment-redirect
// alone (in-process, without wallet-control): its address_in, sealed with the app's keys.
import type { Pool } from 'pg';
import { sealAddressIn, walletDedupeKey, type EvmAddress, type SealingKeyRing } from '@gateway/domain';
import { WalletRepository } from '@gateway/db/wallet-control';

const PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7';

/** Records the wallet of temporary address `temporary` for the shop's order `order` (1 % platform fee); its address_in. */
export async function seedWallet(pool: Pool, keys: SealingKeyRing, temporary: EvmAddress, order: string): Promise<string> {
  const addressIn = sealAddressIn(temporary, keys);
  const callbackUrl = `https://shop.io/ipn?order=${order}`;
  await new WalletRepository(pool).createOrGetMany([
    {
      hdIndex: 0n,
      polygonAddress: temporary,
      addressIn,
      payoutAddress: PAYOUT,
      callbackUrl,
      dedupeKey: walletDedupeKey(PAYOUT, callbackUrl),
      ipnToken: `tok-${order}`,
      keyFingerprint: 'a1b2c3d4',
      platformFeeBps: 100,
    },
  ]);
  return addressIn;
}
