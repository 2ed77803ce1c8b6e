import { randomBytes } from 'node:crypto';
import { walletDedupeKey, type EvmAddress } from '@gateway/domain';
import { WalletRepository } from '@gateway/db/wallet-control';
import { apiAppFixture, type ApiAppFixture, type EnvOverrides } from '@gateway/app-testkit';
import { buildPaymentRedirectApp } from '../../src/app';
import { loadPaymentRedirectConfig, type PaymentRedirectConfig } from '../../src/config';

export type { EnvOverrides };

/** The merchant's own wallet, where every test wallet pays out (the tests check it never leaks to customers). */
export const payout = '0x52908400098527886E0F7030069857D2E4169EE7';

export interface TestWallet {
  /** The temporary address the payment links lead to. */
  temporary: EvmAddress;
  /** Stored as is: payment-redirect finds the wallet by the address the token opens to, not by this column. */
  addressIn: string;
  callbackUrl: string;
  payout?: string;
  hdIndex?: bigint;
  ipnToken?: string;
  /** Create Wallet's customer_pays_fee (migration 038); none unless given. */
  customerPaysFee?: boolean;
  /** An affiliate's share (affiliate.php): fees on top are grossed up for it too. */
  affiliateFeeBps?: number;
}

export interface PaymentRedirectFixture extends ApiAppFixture<PaymentRedirectConfig> {
  /** Stores a wallet as Create Wallet would have (wallet-control's job), for payment links to point at. */
  insertWallet(wallet: TestWallet): Promise<{ walletId: string; ipnToken: string }>;
}

/** A payment-redirect test file's database, Redis prefix, settings and apps (see apiAppFixture), and its wallets. */
export function paymentRedirectFixture(label: string, fileEnv: EnvOverrides = {}): PaymentRedirectFixture {
  // The sandbox stands in for every provider, as on the local stack; tests of real providers set their credentials.
  const base = apiAppFixture(label, {
    app: 'payment-redirect',
    fileEnv: { SANDBOX_CHECKOUT: 'on', ...fileEnv },
    load: loadPaymentRedirectConfig,
    build: buildPaymentRedirectApp,
  });
  return Object.assign(base, {
    async insertWallet({
      temporary,
      addressIn,
      callbackUrl,
      payout: payoutAddress = payout,
      hdIndex = 0n,
      ipnToken = randomBytes(24).toString('base64url'),
      customerPaysFee,
      affiliateFeeBps,
    }: TestWallet) {
      await new WalletRepository(base.db.pool).createOrGetMany([
        {
          hdIndex,
          polygonAddress: temporary,
          addressIn,
          payoutAddress,
          callbackUrl,
          dedupeKey: walletDedupeKey(payoutAddress, callbackUrl),
          ipnToken,
          keyFingerprint: 'a1b2c3d4',
          platformFeeBps: 100,
          ...(customerPaysFee !== undefined ? { customerPaysFee } : {}),
          ...(affiliateFeeBps !== undefined
            ? { affiliate: { affiliateAddress: '0x8ba1f109551bD432803012645Ac136ddd64DBA72', affiliateFeeBps, merchantFeeBps: null } }
            : {}),
        },
      ]);
      // createOrGetMany returns no id; deposits and payments in the tests need it.
      const { rows } = await base.db.pool.query<{ id: string }>('SELECT id::text FROM wallets WHERE polygon_address = $1', [
        temporary.toLowerCase(),
      ]);
      return { walletId: rows[0]!.id, ipnToken };
    },
  });
}
