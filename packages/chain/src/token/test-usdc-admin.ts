import { createPublicClient, createWalletClient, encodeFunctionData, http, parseAbi, type Address, type Hash, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { defineLocalChain, type LocalChainTarget } from './test-usdc-deploy';

/** TestUSDC's blacklister and pauser roles (both the deployer's), as FiatToken names them. */
export const testUsdcAdminAbi = parseAbi([
  'function blacklist(address account)',
  'function unBlacklist(address account)',
  'function pause()',
  'function unpause()',
  'function blacklister() view returns (address)',
  'function pauser() view returns (address)',
  'function updateBlacklister(address newBlacklister)',
  'function updatePauser(address newPauser)',
]);

export interface TestUsdcAdminOptions extends LocalChainTarget {
  token: Address;
  /** The blacklister's and pauser's key: the deployer's unless the roles were moved. */
  adminKey: Hex;
}

async function adminCall(options: TestUsdcAdminOptions, what: string, data: Hex): Promise<Hash> {
  const chain = defineLocalChain(options);
  const transport = http(options.rpcUrl, { retryCount: 0 });
  const walletClient = createWalletClient({ chain, transport, account: privateKeyToAccount(options.adminKey) });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 100 });
  const hash = await walletClient.sendTransaction({ to: options.token, data });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`TestUSDC ${what} reverted (tx ${hash})`);
  return hash;
}

/** Blacklists or clears `account` on a TestUSDC, the way Circle's blacklister does on USDC. Returns the mined tx hash. */
export function setTestUsdcBlacklisted(options: TestUsdcAdminOptions, account: Address, blacklisted: boolean): Promise<Hash> {
  const functionName = blacklisted ? 'blacklist' : 'unBlacklist';
  return adminCall(options, functionName, encodeFunctionData({ abi: testUsdcAdminAbi, functionName, args: [account] }));
}

/** Pauses or unpauses a TestUSDC (nothing moves while paused). Returns the mined tx hash. */
export function setTestUsdcPaused(options: TestUsdcAdminOptions, paused: boolean): Promise<Hash> {
  const functionName = paused ? 'pause' : 'unpause';
  return adminCall(options, functionName, encodeFunctionData({ abi: testUsdcAdminAbi, functionName }));
}
