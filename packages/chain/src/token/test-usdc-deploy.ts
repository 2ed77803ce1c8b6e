import {
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  parseAbi,
  type Address,
  type Chain,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { readFileSync } from 'node:fs';
import { USDC_DECIMALS } from '@gateway/domain';
import { compileSolidity, testUsdcSourcePath } from './compile-solidity';
import type { ContractArtifact } from './contract-artifact';
import { testUsdcArtifact } from './test-usdc-artifact';

export interface LocalChainTarget {
  rpcUrl: string;
  chainId: number;
}

export interface DeployTestUsdcOptions extends LocalChainTarget {
  /** Becomes the token owner, the only account allowed to mint. */
  deployerKey: Hex;
}

export interface MintTestUsdcOptions extends LocalChainTarget {
  token: Address;
  ownerKey: Hex;
  to: Address;
  /** Base units (6 decimals): 1 USDC = 1_000_000n. */
  amount: bigint;
}

const mintAbi = parseAbi(['function mint(address to, uint256 amount)']);

// A local chain mines in well under a second; viem's default 4 s polling would only add waiting.
const LOCAL_POLLING_INTERVAL_MS = 100;

/** A viem chain for a local node (anvil), so clients can check they talk to the chain id intended. */
export function defineLocalChain({ rpcUrl, chainId }: LocalChainTarget): Chain {
  return defineChain({
    id: chainId,
    name: `local-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

// retryCount 0: a retrying transport keeps timers alive after the chain stops (TOOLCHAIN trap 5),
// and against a local node a failure is a real failure.
function localClients(target: LocalChainTarget, privateKey: Hex) {
  const chain = defineLocalChain(target);
  const transport = http(target.rpcUrl, { retryCount: 0 });
  const account = privateKeyToAccount(privateKey);
  return {
    publicClient: createPublicClient({ chain, transport, pollingInterval: LOCAL_POLLING_INTERVAL_MS }),
    walletClient: createWalletClient({ chain, transport, account, pollingInterval: LOCAL_POLLING_INTERVAL_MS }),
  };
}

async function requireSuccess(publicClient: PublicClient, hash: Hash, what: string) {
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`${what} reverted (tx ${hash})`);
  return receipt;
}

/**
 * Deploys TestUSDC from the committed artifact and returns its address. The wallet client is
 * bound to `chainId`, so deploying to a node with another chain id fails instead of silently
 * producing a token whose signatures are valid elsewhere.
 */
export async function deployTestUsdc(options: DeployTestUsdcOptions): Promise<Address> {
  return deployArtifact(options, testUsdcArtifact);
}

/**
 * Deploys TestUSDC with `decimals` decimals instead of 6 (compiled on the spot with solc, about
 * two seconds): a token the gateway must refuse to boot with. For tests only.
 */
export async function deployTestTokenWithDecimals(options: DeployTestUsdcOptions & { decimals: number }): Promise<Address> {
  const declaration = `uint8 public constant decimals = ${USDC_DECIMALS};`;
  const source = readFileSync(testUsdcSourcePath, 'utf8');
  if (!source.includes(declaration)) throw new Error(`TestUSDC.sol no longer declares "${declaration}"`);
  const variant = source.replace(declaration, `uint8 public constant decimals = ${options.decimals};`);
  return deployArtifact(options, compileSolidity('TestUSDC.sol', variant, 'TestUSDC'));
}

async function deployArtifact(options: DeployTestUsdcOptions, artifact: ContractArtifact): Promise<Address> {
  const { publicClient, walletClient } = localClients(options, options.deployerKey);
  const hash = await walletClient.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
  });
  const receipt = await requireSuccess(publicClient, hash, 'TestUSDC deployment');
  if (!receipt.contractAddress) throw new Error(`TestUSDC deployment created no contract (tx ${hash})`);
  return getAddress(receipt.contractAddress);
}

/** Mints `amount` base units to `to`; `ownerKey` must be the deployer's key. Returns the mined tx hash. */
export async function mintTestUsdc(options: MintTestUsdcOptions): Promise<Hash> {
  const { publicClient, walletClient } = localClients(options, options.ownerKey);
  const hash = await walletClient.writeContract({
    address: options.token,
    abi: mintAbi,
    functionName: 'mint',
    args: [options.to, options.amount],
  });
  await requireSuccess(publicClient, hash, 'TestUSDC mint');
  return hash;
}
