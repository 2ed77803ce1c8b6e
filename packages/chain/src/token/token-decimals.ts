import { getAddress, type Address, type Client } from 'viem';
import { readContract } from 'viem/actions';
import { USDC_DECIMALS } from '@gateway/domain';
import { isMissingFunctionError } from './token-domain';
import { usdcAbi } from './usdc-abi';

/**
 * Why the gateway cannot count in this token, or undefined when it can. Every amount inside the
 * gateway (deposits, the fee split, the dust threshold, the callbacks' value_coin) is in base
 * units of USDC_DECIMALS (6) decimals: a token with other decimals would be credited and paid
 * off by powers of ten, so its decimals() is read from the chain at boot, never assumed. A node
 * that cannot be reached throws.
 */
export async function tokenDecimalsProblem(client: Client, tokenAddress: Address): Promise<string | undefined> {
  const token = getAddress(tokenAddress);
  let decimals: number;
  try {
    decimals = await readContract(client, { address: token, abi: usdcAbi, functionName: 'decimals' });
  } catch (error) {
    if (isMissingFunctionError(error)) return `token ${token} answers no decimals() (is it a token on this chain?)`;
    throw error;
  }
  if (decimals === USDC_DECIMALS) return undefined;
  return (
    `token ${token} has ${decimals} decimals; the gateway counts in USDC base units of ${USDC_DECIMALS} decimals and refuses ` +
    `any other token`
  );
}
