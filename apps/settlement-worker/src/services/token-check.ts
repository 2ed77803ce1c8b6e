import type { Pool } from 'pg';
import { tokenDecimalsProblem } from '@gateway/chain';
import { ConfigError } from '@gateway/config';
import { TokenRepository } from '@gateway/db/settlement-worker';
import type { SettlementChainClient } from '../chain/settlement-chain-client';

/**
 * Refuses to pay in a token the gateway cannot count in (its decimals() is not 6), or in another
 * token than the one this database counts in (recorded by the first app to boot).
 */
export async function assertTokenCounted(pool: Pool, chain: SettlementChainClient): Promise<void> {
  const token = { chainId: chain.chainId, address: chain.token };
  const problem = (await tokenDecimalsProblem(chain.client, chain.token)) ?? (await new TokenRepository(pool).register(token));
  if (problem) throw new ConfigError([`USDC_TOKEN_ADDRESS: ${problem}`]);
}
