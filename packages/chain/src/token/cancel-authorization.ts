import { encodeFunctionData, isAddressEqual, type Address, type Hex, type LocalAccount } from 'viem';
import type { TokenDomain } from './token-domain';
import { splitSignature, type SplitSignature } from './transfer-authorization';
import { usdcAbi } from './usdc-abi';

/** The EIP-712 types of an EIP-3009 cancellation, exactly as the standard defines them. */
export const cancelAuthorizationTypes = {
  CancelAuthorization: [
    { name: 'authorizer', type: 'address' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/**
 * Signs the cancellation of an authorization nonce as `authorizer`. Once a relayer has it mined,
 * no signature carrying that nonce can move funds any more.
 */
export async function signCancelAuthorization(
  account: LocalAccount,
  domain: TokenDomain,
  authorizer: Address,
  nonce: Hex,
): Promise<SplitSignature> {
  if (!isAddressEqual(account.address, authorizer)) {
    throw new Error(`signCancelAuthorization: account ${account.address} cannot cancel an authorization of ${authorizer}`);
  }
  const signature = await account.signTypedData({
    domain,
    types: cancelAuthorizationTypes,
    primaryType: 'CancelAuthorization',
    message: { authorizer, nonce },
  });
  return splitSignature(signature);
}

/** Calldata for `cancelAuthorization(authorizer,nonce,v,r,s)`, ready to relay. */
export function encodeCancelAuthorization(authorizer: Address, nonce: Hex, signature: Pick<SplitSignature, 'v' | 'r' | 's'>): Hex {
  return encodeFunctionData({
    abi: usdcAbi,
    functionName: 'cancelAuthorization',
    args: [authorizer, nonce, signature.v, signature.r, signature.s],
  });
}
