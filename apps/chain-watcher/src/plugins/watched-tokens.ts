import type { FastifyBaseLogger } from 'fastify';
import fp from 'fastify-plugin';
import type { Address } from 'viem';
import { ConfigError } from '@gateway/config';
import { TokenRepository } from '@gateway/db/chain-watcher';
import { assertTokenCounted } from '@gateway/http/boot-checks';
import type { ChainWatcherConfig } from '../config';
import type { ChainReader } from '../services/chain-reader';

declare module 'fastify' {
  interface FastifyInstance {
    /** USDC_TOKEN_ADDRESS, and OTHER_USDC_TOKEN_ADDRESS where it is a 6-decimal token on this chain. */
    watchedTokens: Address[];
  }
}

/**
 * Follows the other USDC only where it is a 6-decimal token. On a chain without a contract at its
 * address (a local chain left with the Polygon default) there is nothing to follow: a warning
 * outside production, a refusal in production.
 */
async function assertOtherTokenCounted(chain: ChainReader, token: Address, production: boolean, log: FastifyBaseLogger): Promise<boolean> {
  const problem = await chain.tokenDecimalsProblem(token);
  if (problem === undefined) return true;
  if (production) throw new ConfigError([`OTHER_USDC_TOKEN_ADDRESS: ${problem}`]);
  log.warn({ token, problem }, 'OTHER_USDC_TOKEN_ADDRESS is not a 6-decimal token on this chain; following USDC_TOKEN_ADDRESS only');
  return false;
}

export const watchedTokens = fp<{ config: ChainWatcherConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    const chain = app.chainReader;
    await assertTokenCounted({
      tokens: new TokenRepository(app.pool),
      token: { chainId: raw.CHAIN_ID, address: config.tokenAddress },
      onChain: () => chain.tokenDecimalsProblem(config.tokenAddress),
    });
    const other = config.otherTokenAddress;
    const followOther = other !== undefined && (await assertOtherTokenCounted(chain, other, raw.NODE_ENV === 'production', app.log));
    if (followOther) app.log.info({ token: other }, 'following the other USDC too: its deposits are recorded and held for the operator');
    app.decorate('watchedTokens', followOther ? [config.tokenAddress, other] : [config.tokenAddress]);
  },
  { name: 'watched-tokens', dependencies: ['postgres', 'chain-reader'] },
);
