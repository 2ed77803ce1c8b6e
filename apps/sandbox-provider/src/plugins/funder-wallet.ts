import fp from 'fastify-plugin';
import { formatUsdc } from '@gateway/domain';
import type { FunderWallet } from '../services/funder-wallet';

declare module 'fastify' {
  interface FastifyInstance {
    /** The funded test account that pays the approved orders. */
    funderWallet: FunderWallet;
  }
}

export const funderWallet = fp<{ funder: FunderWallet }>(
  async (app, { funder }) => {
    const balance = await funder.tokenBalance();
    const details = { funder: funder.address, token: funder.token, usdc: formatUsdc(balance) };
    if (balance === 0n) app.log.warn(details, 'the sandbox funder holds no test USDC: approved cards will fail until it is funded');
    else app.log.info(details, 'sandbox funder ready');
    app.decorate('funderWallet', funder);
  },
  { name: 'funder-wallet' },
);
