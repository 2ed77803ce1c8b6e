import { sameAddress } from '@gateway/domain';
import type { SandboxProviderConfig } from '../config';
import { createFunderWallet, type FunderWallet } from './funder-wallet';

/** The sandbox would pay with something real: it does not start. */
export class SandboxBootRefusedError extends Error {
  constructor(reason: string) {
    super(`sandbox-provider refuses to start: ${reason}`);
    this.name = 'SandboxBootRefusedError';
  }
}

const POLYGON_CHAIN_ID = 137;
const REAL_POLYGON_USDC: Record<string, string> = {
  '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359': 'native USDC on Polygon',
  '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174': 'bridged USDC.e on Polygon',
};

/**
 * The sandbox hands out money for test cards, so it must only ever hold test money: not in
 * production, not on Polygon (by configuration or by what the RPC endpoint really is), and only
 * with a token that exists on the chain it talks to and is not the real USDC.
 */
export async function checkSandboxSafety(config: SandboxProviderConfig, funder: FunderWallet = createFunderWallet(config)): Promise<void> {
  const { raw } = config;
  if (raw.NODE_ENV === 'production') {
    throw new SandboxBootRefusedError('NODE_ENV is production; the sandbox simulates card payments and is for development only');
  }
  if (raw.CHAIN_ID === POLYGON_CHAIN_ID) {
    throw new SandboxBootRefusedError('CHAIN_ID is 137 (Polygon mainnet); point it at a local test chain such as anvil (31337)');
  }
  const realToken = Object.keys(REAL_POLYGON_USDC).find((address) => sameAddress(address, config.token));
  if (realToken) {
    throw new SandboxBootRefusedError(
      `USDC_TOKEN_ADDRESS is the ${REAL_POLYGON_USDC[realToken]}; deploy the test USDC on the local chain and use its address`,
    );
  }
  let rpcChainId: number;
  try {
    rpcChainId = await funder.rpcChainId();
  } catch {
    // The URL itself is not repeated: it may carry an API key.
    throw new SandboxBootRefusedError('the chain at CHAIN_RPC_URL does not answer eth_chainId; start the local chain first');
  }
  if (rpcChainId === POLYGON_CHAIN_ID) {
    throw new SandboxBootRefusedError('the chain at CHAIN_RPC_URL answers chain id 137 (Polygon mainnet); use a local test chain');
  }
  if (rpcChainId !== raw.CHAIN_ID) {
    throw new SandboxBootRefusedError(
      `the chain at CHAIN_RPC_URL answers chain id ${rpcChainId}, which differs from CHAIN_ID ${raw.CHAIN_ID}`,
    );
  }
  if (!(await funder.hasCode(config.token))) {
    throw new SandboxBootRefusedError(
      `no test token: there is no contract code at USDC_TOKEN_ADDRESS ${config.token} on chain ${rpcChainId}`,
    );
  }
  // The gateway counts in 6-decimal base units: a token with other decimals would pay orders off by powers of ten.
  const decimalsProblem = await funder.tokenDecimalsProblem();
  if (decimalsProblem) throw new SandboxBootRefusedError(`USDC_TOKEN_ADDRESS: ${decimalsProblem}`);
}
