import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  http,
  keccak256,
  parseTransaction,
  TransactionNotFoundError,
  type Account,
  type Address,
  type Chain,
  type Hash,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { defineLocalChain, tokenDecimalsProblem } from '@gateway/chain';
import type { SandboxProviderConfig } from '../config';

export interface FunderWalletOptions {
  rpcUrl: string;
  chainId: number;
  privateKey: Hex;
  token: Address;
}

export interface SignedTransfer {
  rawTx: Hex;
  hash: Hash;
}

// A local chain mines at once; viem's default 4 s polling would only add waiting.
const POLLING_INTERVAL_MS = 100;
const RPC_TIMEOUT_MS = 10_000;

/**
 * The sandbox's own funded test account and the chain it pays on. Signing and broadcasting are
 * separate steps so the caller can store a transfer before anyone can see it.
 */
export class FunderWallet {
  readonly address: Address;
  readonly token: Address;
  private readonly publicClient: PublicClient<Transport, Chain>;
  private readonly walletClient: WalletClient<Transport, Chain, Account>;

  constructor(options: FunderWalletOptions) {
    const chain = defineLocalChain(options);
    // retryCount 0: the caller decides about retries, and no retry timer outlives a stopped chain.
    const transport = http(options.rpcUrl, { retryCount: 0, timeout: RPC_TIMEOUT_MS });
    const account = privateKeyToAccount(options.privateKey);
    this.address = account.address;
    this.token = options.token;
    this.publicClient = createPublicClient({ chain, transport, pollingInterval: POLLING_INTERVAL_MS });
    this.walletClient = createWalletClient({ chain, transport, account, pollingInterval: POLLING_INTERVAL_MS });
  }

  /** The chain id the RPC endpoint answers, whatever this wallet was configured with. */
  rpcChainId(): Promise<number> {
    return this.publicClient.getChainId();
  }

  async hasCode(address: Address): Promise<boolean> {
    const code = await this.publicClient.getCode({ address });
    return code !== undefined && code !== '0x';
  }

  /** Why the gateway could not count in the token (its decimals() is not 6), or undefined. */
  tokenDecimalsProblem(): Promise<string | undefined> {
    return tokenDecimalsProblem(this.publicClient, this.token);
  }

  tokenBalance(): Promise<bigint> {
    return this.publicClient.readContract({ address: this.token, abi: erc20Abi, functionName: 'balanceOf', args: [this.address] });
  }

  /** Signs a USDC transfer under the next free nonce; nothing leaves this process yet. */
  async signTransfer(to: Address, amount: bigint): Promise<SignedTransfer> {
    const request = await this.walletClient.prepareTransactionRequest({
      to: this.token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
    });
    const rawTx = await this.walletClient.signTransaction(request);
    return { rawTx, hash: keccak256(rawTx) };
  }

  async broadcast(rawTx: Hex): Promise<void> {
    await this.publicClient.sendRawTransaction({ serializedTransaction: rawTx });
  }

  /** Whether the node has the transaction, pending or mined. */
  async knows(hash: Hash): Promise<boolean> {
    try {
      await this.publicClient.getTransaction({ hash });
      return true;
    } catch (error) {
      if (error instanceof TransactionNotFoundError) return false;
      throw error;
    }
  }

  /** True when a mined transaction of this account already used the nonce `rawTx` was signed with. */
  async nonceSpent(rawTx: Hex): Promise<boolean> {
    const { nonce } = parseTransaction(rawTx);
    const mined = await this.publicClient.getTransactionCount({ address: this.address, blockTag: 'latest' });
    return nonce !== undefined && nonce < mined;
  }

  waitForReceipt(hash: Hash, timeoutMs: number): Promise<TransactionReceipt> {
    return this.publicClient.waitForTransactionReceipt({ hash, timeout: timeoutMs });
  }
}

/** The wallet the configuration describes: the funded test account on CHAIN_RPC_URL. */
export function createFunderWallet(config: SandboxProviderConfig): FunderWallet {
  return new FunderWallet({
    rpcUrl: config.raw.CHAIN_RPC_URL,
    chainId: config.raw.CHAIN_ID,
    privateKey: config.funderKey,
    token: config.token,
  });
}
