import fp from 'fastify-plugin';
import { WalletRepository } from '@gateway/db/wallet-control';
import type { WalletControlConfig } from '../config';
import { AddressSupply } from '../services/address-supply';
import { WalletService } from '../services/wallet-service';

declare module 'fastify' {
  interface FastifyInstance {
    walletService: WalletService;
  }
}

export const walletService = fp<{ config: WalletControlConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    const wallets = new WalletRepository(app.pool);
    const addressSupply = new AddressSupply(wallets, app.addressDeriver, {
      reserveBatch: raw.HD_INDEX_RESERVE_BATCH,
      onReserved: app.walletControlMetrics.hdIndexesReserved,
    });
    app.decorate(
      'walletService',
      new WalletService({
        wallets,
        addresses: addressSupply,
        keys: config.keys,
        tokenAddress: config.tokenAddress,
        allowTestDomains: raw.CALLBACK_ALLOW_TEST_DOMAINS,
        callbackAllowedCidrs: config.callbackAllowedCidrs,
        platformFeeBps: raw.PLATFORM_FEE_BPS,
        affiliateShareBps: raw.AFFILIATE_SHARE_BPS,
        requireHttps: raw.NODE_ENV === 'production',
        pins: config.pins,
        affiliateWallets: config.affiliateWallets,
        quota: app.payoutQuota,
        callbackOwnership: raw.CALLBACK_OWNERSHIP,
      }),
    );
  },
  { name: 'wallet-service', dependencies: ['postgres', 'address-deriver', 'payout-quota', 'wallet-control-metrics'] },
);
