import { getAddress } from 'viem';
import type { EvmAddress } from './identifiers';
import { POLYGON_BRIDGED_USDC, POLYGON_NATIVE_USDC } from './other-usdc';

/**
 * Token contracts that are never anyone's wallet: USDC sent to one is lost for good. They are
 * refused as payout and affiliate addresses whatever token the gateway is configured with (the
 * local stack runs a test token, and a merchant can still paste Polygon's USDC address), beside
 * the configured token itself.
 */
export const WELL_KNOWN_TOKEN_CONTRACTS: ReadonlyArray<{ address: EvmAddress; name: string }> = [
  { address: POLYGON_NATIVE_USDC, name: 'USDC (native) on Polygon PoS' },
  { address: POLYGON_BRIDGED_USDC, name: 'USDC.e (bridged) on Polygon PoS' },
];

const byAddress = new Map(WELL_KNOWN_TOKEN_CONTRACTS.map((token) => [token.address.toLowerCase(), token.name]));

/** The name of the token contract at `address` (any case), or undefined: a well-known one, or the configured token. */
export function tokenContractAt(address: string, configuredToken: EvmAddress): string | undefined {
  const lower = address.toLowerCase();
  if (lower === configuredToken.toLowerCase()) return byAddress.get(lower) ?? `the configured token (${getAddress(configuredToken)})`;
  return byAddress.get(lower);
}
