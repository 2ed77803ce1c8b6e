import type { Pool } from 'pg';
import { fingerprintFromMnemonic, tokenDecimalsProblem } from '@gateway/chain';
import { HdKeyRepository, TokenRepository } from '@gateway/db/settlement-worker';
import type { HdKeyCheckOptions, TokenCheckOptions } from '@gateway/http/boot-checks';
import type { SettlementChainClient } from '../chain/settlement-chain-client';

// What the worker's plugins and the operator's replan check before they sign, with the apps' own checks
// (@gateway/http/boot-checks): here, how settlement reads them.

/** The seed's key against the one wallet-control registered (it derived the temporary wallets from that key's xpub). */
export function seedKeyCheck(pool: Pool, mnemonic: string): HdKeyCheckOptions {
  return {
    knownKeys: () => new HdKeyRepository(pool).list(),
    fingerprint: fingerprintFromMnemonic(mnemonic),
    setting: "SETTLEMENT_MNEMONIC: its key m/44'/60'/0'/0",
    remedy: 'configure the seed whose xpub wallet-control uses',
  };
}

/** The token it pays in: 6 decimals on chain, and the one this database counts in. */
export function payoutTokenCheck(pool: Pool, chain: SettlementChainClient): TokenCheckOptions {
  return {
    tokens: new TokenRepository(pool),
    token: { chainId: chain.chainId, address: chain.token },
    onChain: () => tokenDecimalsProblem(chain.client, chain.token),
  };
}
