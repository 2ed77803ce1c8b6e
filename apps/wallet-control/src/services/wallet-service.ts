import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import { parseWalletRequest, sealAddressIn, type EvmAddress, type SealingKeyRing } from '@gateway/domain';
import { createBatcher, type NewWallet, type WalletRepository, type WalletRow } from '@gateway/db';
import type { AddressSupply } from './address-supply';

export interface WalletControlData {
  address_in: string;
  polygon_address_in: string;
  callback_url: string;
  ipn_token: string;
}

export interface WalletServiceDeps {
  wallets: WalletRepository;
  addresses: AddressSupply;
  keys: SealingKeyRing;
  tokenAddress: EvmAddress;
  allowTestDomains: boolean;
}

// Concurrent requests share statements: a statement costs PostgreSQL far more than a row.
const BATCHING = { maxBatchSize: 64, maxInFlight: 4, lingerMs: 1 };

/** Create Wallet (spec 4.1): one temporary wallet per (payout address, callback URL). */
export class WalletService {
  private readonly createOrGetWallet: (candidate: NewWallet) => Promise<{ row: WalletRow; created: boolean }>;

  constructor(private readonly deps: WalletServiceDeps) {
    this.createOrGetWallet = createBatcher((candidates: NewWallet[]) => deps.wallets.createOrGetMany(candidates), BATCHING);
  }

  async createOrGet(query: { address: string; callback: string }): Promise<{ data: WalletControlData; created: boolean }> {
    const request = parseWalletRequest(query, {
      tokenAddress: this.deps.tokenAddress,
      allowTestDomains: this.deps.allowTestDomains,
    });
    const candidate = await this.deps.addresses.take();
    const { row, created } = await this.createOrGetWallet({
        hdIndex: candidate.hdIndex,
        polygonAddress: candidate.polygonAddress,
        addressIn: sealAddressIn(candidate.polygonAddress as EvmAddress, this.deps.keys),
        payoutAddress: request.payoutAddress,
        callbackUrl: request.callbackUrl,
        dedupeKey: request.dedupeKey,
        // 192 random bits: support staff quote it, nobody can guess it.
        ipnToken: randomBytes(24).toString('base64url'),
      }).catch((error: unknown) => {
        this.deps.addresses.giveBack(candidate);
        throw error;
      });
    if (!created) this.deps.addresses.giveBack(candidate);
    return {
      created,
      data: {
        address_in: row.addressIn,
        polygon_address_in: created ? candidate.polygonAddress : getAddress(row.polygonAddress),
        callback_url: row.callbackUrl,
        ipn_token: row.ipnToken,
      },
    };
  }
}
