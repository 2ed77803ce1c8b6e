import fp from 'fastify-plugin';
import { TokenRepository } from '@gateway/db/wallet-control';
import { assertTokenCounted } from '@gateway/http/boot-checks';
import type { WalletControlConfig } from '../config';

export const tokenCheck = fp<{ config: WalletControlConfig }>(
  async (app, { config }) => {
    await assertTokenCounted({
      tokens: new TokenRepository(app.pool),
      token: { chainId: config.raw.CHAIN_ID, address: config.tokenAddress },
    });
  },
  { name: 'token-check', dependencies: ['postgres'] },
);
