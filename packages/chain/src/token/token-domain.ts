import {
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  domainSeparator,
  getAddress,
  type Address,
  type Client,
  type Hex,
} from 'viem';
import { getChainId, readContract } from 'viem/actions';
import { usdcAbi } from './usdc-abi';

/** The EIP-712 domain a token checks signatures against (FiatTokenV2 shape: no salt). */
export interface TokenDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Address;
}

// eip712Domain() `fields` bitmap (EIP-5267) for exactly name, version, chainId, verifyingContract.
const NAME_VERSION_CHAIN_CONTRACT_FIELDS = '0x0f';

/** True when a contract read failed because the function is not there (revert or empty return). */
export function isMissingFunctionError(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    error.walk((cause) => cause instanceof ContractFunctionRevertedError || cause instanceof ContractFunctionZeroDataError) !== null
  );
}

/** FiatTokenV2 style: `name()` and `version()`. Returns null when the token has no `version()`. */
async function readNameAndVersion(client: Client, token: Address): Promise<{ name: string; version: string } | null> {
  let version: string;
  try {
    version = await readContract(client, { address: token, abi: usdcAbi, functionName: 'version' });
  } catch (error) {
    if (isMissingFunctionError(error)) return null;
    throw error;
  }
  const name = await readContract(client, { address: token, abi: usdcAbi, functionName: 'name' });
  return { name, version };
}

/** EIP-5267 style; refuses domains this type cannot express (salt, extensions, missing fields). */
async function readEip5267Domain(client: Client, token: Address, chainId: number): Promise<TokenDomain> {
  let reply: readonly [Hex, string, string, bigint, Address, Hex, readonly bigint[]];
  try {
    reply = await readContract(client, { address: token, abi: usdcAbi, functionName: 'eip712Domain' });
  } catch (error) {
    if (!isMissingFunctionError(error)) throw error;
    throw new Error(`token ${token} on chain ${chainId} has neither version() nor eip712Domain(): cannot learn its EIP-712 domain`, {
      cause: error,
    });
  }
  const [fields, name, version, domainChainId, verifyingContract, , extensions] = reply;
  if (fields.toLowerCase() !== NAME_VERSION_CHAIN_CONTRACT_FIELDS || extensions.length > 0) {
    throw new Error(
      `token ${token}: eip712Domain() fields ${fields} are not {name, version, chainId, verifyingContract}; ` +
        'this domain shape is not supported',
    );
  }
  if (domainChainId !== BigInt(chainId) || getAddress(verifyingContract) !== token) {
    throw new Error(
      `token ${token}: eip712Domain() names chain ${domainChainId} and contract ${verifyingContract}, ` +
        `but it lives on chain ${chainId} at ${token}`,
    );
  }
  return { name, version, chainId, verifyingContract: token };
}

/** Throws unless `domain` hashes to the separator the token itself reports. */
async function assertMatchesOnChainSeparator(client: Client, domain: TokenDomain): Promise<void> {
  const onChain = await readContract(client, {
    address: domain.verifyingContract,
    abi: usdcAbi,
    functionName: 'DOMAIN_SEPARATOR',
  });
  const computed = domainSeparator({ domain });
  if (onChain.toLowerCase() !== computed.toLowerCase()) {
    throw new Error(
      `token ${domain.verifyingContract} on chain ${domain.chainId}: DOMAIN_SEPARATOR() is ${onChain}, but the domain read from it ` +
        `(name "${domain.name}", version "${domain.version}") hashes to ${computed}; signatures made with it would be rejected`,
    );
  }
}

/**
 * Reads a token's EIP-712 domain from the chain (never from configuration): `name()` and
 * `version()`, or `eip712Domain()` when there is no `version()`; the chain id comes from the node.
 * The result is checked against the token's own `DOMAIN_SEPARATOR()` before it is returned.
 */
export async function readTokenDomain(client: Client, tokenAddress: Address): Promise<TokenDomain> {
  const token = getAddress(tokenAddress);
  const chainId = await getChainId(client);
  const nameAndVersion = await readNameAndVersion(client, token);
  const domain = nameAndVersion
    ? { ...nameAndVersion, chainId, verifyingContract: token }
    : await readEip5267Domain(client, token, chainId);
  await assertMatchesOnChainSeparator(client, domain);
  return domain;
}
