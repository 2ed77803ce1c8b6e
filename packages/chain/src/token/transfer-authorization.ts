import { randomBytes } from 'node:crypto';
import { encodeFunctionData, isAddressEqual, parseSignature, type Address, type Hex, type LocalAccount } from 'viem';
import type { TokenDomain } from './token-domain';
import { usdcAbi } from './usdc-abi';

/** EIP-3009 `TransferWithAuthorization` message, amounts and times as bigint (base units, unix seconds). */
export interface TransferAuthorization {
  from: Address;
  to: Address;
  value: bigint;
  /** Valid only in blocks with timestamp strictly greater than this. */
  validAfter: bigint;
  /** Valid only in blocks with timestamp strictly less than this. */
  validBefore: bigint;
  /** 32 random bytes; each (from, nonce) can be used or canceled once. */
  nonce: Hex;
}

/** A 65-byte ECDSA signature and its parts as FiatTokenV2's (v, r, s) parameters want them. */
export interface SplitSignature {
  v: number;
  r: Hex;
  s: Hex;
  signature: Hex;
}

/** The EIP-712 types for EIP-3009 transfers, exactly as the standard defines them. */
export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** A fresh EIP-3009 nonce. Random rather than sequential, so signers need no shared counter. */
export function randomAuthorizationNonce(): Hex {
  return `0x${randomBytes(32).toString('hex')}`;
}

/** Splits a 65-byte signature into v (27 or 28), r and s. */
export function splitSignature(signature: Hex): SplitSignature {
  const { r, s, yParity } = parseSignature(signature);
  return { v: yParity + 27, r, s, signature };
}

/**
 * Signs an EIP-3009 transfer as `authorization.from`. Anyone holding the result can submit it
 * (the relayer pays the gas); the signer needs no native token.
 */
export async function signTransferAuthorization(
  account: LocalAccount,
  domain: TokenDomain,
  authorization: TransferAuthorization,
): Promise<SplitSignature> {
  if (!isAddressEqual(account.address, authorization.from)) {
    throw new Error(`signTransferAuthorization: account ${account.address} cannot authorize a transfer from ${authorization.from}`);
  }
  const signature = await account.signTypedData({
    domain,
    types: transferWithAuthorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  });
  return splitSignature(signature);
}

/** Calldata for `transferWithAuthorization(from,to,value,validAfter,validBefore,nonce,v,r,s)`, ready to relay. */
export function encodeTransferWithAuthorization(
  authorization: TransferAuthorization,
  signature: Pick<SplitSignature, 'v' | 'r' | 's'>,
): Hex {
  const { from, to, value, validAfter, validBefore, nonce } = authorization;
  return encodeFunctionData({
    abi: usdcAbi,
    functionName: 'transferWithAuthorization',
    args: [from, to, value, validAfter, validBefore, nonce, signature.v, signature.r, signature.s],
  });
}
