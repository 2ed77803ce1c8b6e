import { getAddress } from 'viem';
import { invalidParameter } from './errors';
import { type EvmAddress, isHexAddress } from './identifiers';
import { tokenContractAt } from './token-contracts';

export type { EvmAddress };

export const ZERO_ADDRESS: EvmAddress = '0x0000000000000000000000000000000000000000';

/** True for anything shaped like a raw EVM address, checksummed or not. */
export function looksLikeEvmAddress(input: string): boolean {
  return /^0x[0-9a-fA-F]*$/i.test(input.trim()) && input.trim().length >= 4;
}

/**
 * Validates a payout address for USDC on Polygon. All-lower or all-upper hex is accepted as is
 * (no checksum was claimed); mixed case claims an EIP-55 checksum, which must then be right,
 * because a typo in a checksummed address is exactly what EIP-55 exists to catch. The zero address
 * and token contracts (the configured token and the well-known ones, token-contracts.ts) are refused.
 */
export function parsePayoutAddress(input: string, options: { tokenAddress: EvmAddress }, param = 'address'): EvmAddress {
  const checksummed = parseHexAddress(input, param);
  if (checksummed === ZERO_ADDRESS) {
    throw invalidParameter(param, `${param} is the zero address; funds sent there are burnt. Send your own USDC wallet address`);
  }
  const token = tokenContractAt(checksummed, options.tokenAddress);
  if (token !== undefined) {
    throw invalidParameter(
      param,
      `${param} is a token contract (${token}), not a wallet: USDC sent there is lost. Send the wallet address that should receive USDC`,
    );
  }
  return checksummed;
}

/**
 * Reads an EVM address: 0x and 40 hexadecimal characters, all-lower or all-upper as is, mixed case
 * only with a right EIP-55 checksum. Gives it checksummed; anything else is refused, naming `param`.
 */
export function parseHexAddress(input: string, param: string): EvmAddress {
  if (!isHexAddress(input)) {
    throw invalidParameter(param, `${param} must be a Polygon wallet address: 0x followed by 40 hexadecimal characters`);
  }
  const body = input.slice(2);
  const mixedCase = body !== body.toLowerCase() && body !== body.toUpperCase();
  const checksummed = getAddress(input.toLowerCase());
  if (mixedCase && checksummed !== input) {
    throw invalidParameter(param, `${param} fails its EIP-55 checksum; copy the address again from the wallet (or send it in lower case)`);
  }
  return checksummed;
}

export function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
