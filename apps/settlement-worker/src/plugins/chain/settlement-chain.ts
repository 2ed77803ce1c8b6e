import fp from 'fastify-plugin';
import { assertTokenCounted } from '@gateway/http/boot-checks';
import type { SettlementChainClient } from '../../chain/settlement-chain-client';
import { payoutTokenCheck } from '../../services/boot-checks';

declare module 'fastify' {
  interface FastifyInstance {
    /** Connected at boot (the token's EIP-712 domain read from the chain), on the token this database counts in. */
    settlementChain: SettlementChainClient;
  }
}

export const settlementChain = fp<{ chain: SettlementChainClient }>(
  async (app, { chain }) => {
    await assertTokenCounted(payoutTokenCheck(app.pool, chain));
    app.decorate('settlementChain', chain);
  },
  { name: 'settlement-chain', dependencies: ['postgres'] },
);
