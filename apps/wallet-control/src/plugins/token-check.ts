import fp from 'fastify-plugin';
import { ConfigError } from '@gateway/config';
import { TokenRepository } from '@gateway/db/wallet-control';
import type { WalletControlConfig } from '../config';

/** Amounts here are in the token the database counts in (migration 016): another one refuses to boot. */
export const tokenCheck = fp<{ config: WalletControlConfig }>(
  async (app, { config }) => {
    const otherToken = await new TokenRepository(app.pool).register({ chainId: config.raw.CHAIN_ID, address: config.tokenAddress });
    if (otherToken) throw new ConfigError([`USDC_TOKEN_ADDRESS: ${otherToken}`]);
  },
  { name: 'token-check', dependencies: ['postgres'] },
);
