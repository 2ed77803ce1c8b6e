import {
  createPublicClient,
  createWalletClient,
  http,
  parseAbi,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { defineLocalChain, deployTestUsdc, mintTestUsdc } from '@gateway/chain';
import { anvilAccounts, startAnvil, type RunningAnvil } from '@gateway/testkit';

/** anvil reports `finalized` as the head minus two epochs of 32 slots; it serves the tag, so deposits wait for that. */
export const FINALIZED_LAG = 64;

const transferAbi = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);
const SENDER = anvilAccounts[1];
const SENDER_FUNDS = 1_000_000_000_000n;

/** anvil with TestUSDC deployed and a funded sender, plus the RPC calls tests need. */
export interface LocalChain {
  anvil: RunningAnvil;
  token: Address;
  sender: Address;
  publicClient: PublicClient;
  /** Sends `amount` base units from the sender to `to` (mined at once); returns the receipt. */
  sendUsdc(to: string, amount: bigint): Promise<TransactionReceipt>;
  /** Deploys another ERC-20 (a second TestUSDC, not the watched token) and funds the sender with it. */
  deployForeignToken(): Promise<Address>;
  /** Like sendUsdc, in another token. */
  sendToken(token: Address, to: string, amount: bigint): Promise<TransactionReceipt>;
  /** The signed raw transfer, to broadcast (again) with `broadcast`. */
  signUsdcTransfer(to: string, amount: bigint): Promise<Hex>;
  broadcast(raw: Hex): Promise<TransactionReceipt>;
  mine(blocks: number): Promise<void>;
  snapshot(): Promise<Hex>;
  revert(id: Hex): Promise<void>;
  blockHash(number: bigint): Promise<Hash>;
  head(): Promise<bigint>;
  stop(): Promise<void>;
}

export async function startLocalChain(): Promise<LocalChain> {
  const anvil = await startAnvil();
  const target = { rpcUrl: anvil.rpcUrl, chainId: anvil.chainId };
  const deployerKey = anvilAccounts[0].privateKey;
  const token = await deployTestUsdc({ ...target, deployerKey });
  await mintTestUsdc({ ...target, token, ownerKey: deployerKey, to: SENDER.address, amount: SENDER_FUNDS });

  const chain = defineLocalChain(target);
  const transport = http(anvil.rpcUrl, { retryCount: 0 });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 }) as PublicClient;
  const walletClient: WalletClient = createWalletClient({ chain, transport, account: privateKeyToAccount(SENDER.privateKey) });
  const request = (method: string, params: unknown[] = []): Promise<unknown> =>
    publicClient.request({ method: method as 'eth_chainId', params: params as never });
  const receiptOf = async (hash: Hash) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== 'success') throw new Error(`tx ${hash} reverted`);
    return receipt;
  };

  const sendToken = async (tokenAddress: Address, to: string, amount: bigint) => {
    const hash = await walletClient.writeContract({
      address: tokenAddress,
      abi: transferAbi,
      functionName: 'transfer',
      args: [to as Address, amount],
      account: walletClient.account!,
      chain,
    });
    return receiptOf(hash);
  };

  return {
    anvil,
    token,
    sender: SENDER.address,
    publicClient,
    sendUsdc: (to, amount) => sendToken(token, to, amount),
    async deployForeignToken() {
      const foreign = await deployTestUsdc({ ...target, deployerKey });
      await mintTestUsdc({ ...target, token: foreign, ownerKey: deployerKey, to: SENDER.address, amount: SENDER_FUNDS });
      return foreign;
    },
    sendToken,
    async signUsdcTransfer(to, amount) {
      const prepared = await walletClient.prepareTransactionRequest({
        to: token,
        data: encodeTransfer(to as Address, amount),
        account: walletClient.account!,
        chain,
        gas: 100_000n,
      });
      return walletClient.signTransaction({ ...prepared, account: walletClient.account!, chain } as never);
    },
    async broadcast(raw) {
      return receiptOf(await publicClient.sendRawTransaction({ serializedTransaction: raw }));
    },
    async mine(blocks) {
      await request('anvil_mine', [`0x${blocks.toString(16)}`]);
    },
    async snapshot() {
      return (await request('evm_snapshot')) as Hex;
    },
    async revert(id) {
      if ((await request('evm_revert', [id])) !== true) throw new Error(`evm_revert ${id} refused`);
    },
    async blockHash(number) {
      const block = await publicClient.getBlock({ blockNumber: number });
      return block.hash;
    },
    head: () => publicClient.getBlockNumber({ cacheTime: 0 }),
    stop: () => anvil.stop(),
  };
}

function encodeTransfer(to: Address, amount: bigint): Hex {
  return `0xa9059cbb${to.slice(2).toLowerCase().padStart(64, '0')}${amount.toString(16).padStart(64, '0')}` as Hex;
}
