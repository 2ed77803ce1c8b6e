import {
  BaseError,
  BlockNotFoundError,
  createPublicClient,
  defineChain,
  getAddress,
  http,
  parseEventLogs,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import {
  DEFAULT_MAX_BLOCK_RANGE,
  LogRangeWidth,
  readFinalizedTag,
  readTokenDomain,
  searchLogRanges,
  usdcAbi,
  type TokenDomain,
} from '@gateway/chain';
import type { FinalizedTagAnswer } from '@gateway/domain';
import { isTransportError } from './chain-errors';

export interface SettlementChainClientOptions {
  rpcUrl: string;
  chainId: number;
  token: Address;
  pollingIntervalMs: number;
  /** Most blocks per eth_getLogs call (MAX_BLOCK_RANGE); halved while the node refuses a range. */
  maxBlockRange?: number;
}

export interface FeeEstimate {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** Where an authorization was used on chain: the transaction that paid the leg. */
export interface AuthorizationUse {
  txHash: Hash;
  blockNumber: bigint;
  blockHash: Hash;
}

/**
 * Everything settlement asks the chain, in the shape it needs. The token's EIP-712 domain is read
 * from the token at boot (name/version, checked against DOMAIN_SEPARATOR), never configured.
 */
export class SettlementChainClient {
  private constructor(
    readonly client: PublicClient,
    readonly chainId: number,
    readonly token: Address,
    readonly domain: TokenDomain,
    private readonly logRangeWidth: LogRangeWidth,
  ) {}

  /** Connects, checks the node serves the configured chain, and reads the token's domain. */
  static async connect(options: SettlementChainClientOptions): Promise<SettlementChainClient> {
    const chain = defineChain({
      id: options.chainId,
      name: `chain-${options.chainId}`,
      nativeCurrency: { name: 'native', symbol: 'NATIVE', decimals: 18 },
      rpcUrls: { default: { http: [options.rpcUrl] } },
    });
    // cacheTime 0: confirmations are counted from the block number, which must be fresh.
    const client = createPublicClient({
      chain,
      // Retries are the settlement loop's job (it re-reads the chain every round), not the
      // transport's; a retrying transport also keeps timers alive after the node stops.
      transport: http(options.rpcUrl, { retryCount: 0, timeout: 10_000 }),
      pollingInterval: options.pollingIntervalMs,
      cacheTime: 0,
    }) as PublicClient;
    const served = await client.getChainId();
    if (served !== options.chainId) {
      throw new Error(`the RPC node serves chain ${served}, but CHAIN_ID is ${options.chainId}`);
    }
    const token = getAddress(options.token);
    const domain = await readTokenDomain(client, token);
    return new SettlementChainClient(
      client,
      options.chainId,
      token,
      domain,
      new LogRangeWidth(options.maxBlockRange ?? DEFAULT_MAX_BLOCK_RANGE),
    );
  }

  isAuthorizationUsed(authorizer: Address, nonce: Hex): Promise<boolean> {
    return this.client.readContract({
      address: this.token,
      abi: usdcAbi,
      functionName: 'authorizationState',
      args: [authorizer, nonce],
    });
  }

  /** The receipt, or null while the transaction is not mined. */
  async receiptOf(hash: Hash): Promise<TransactionReceipt | null> {
    try {
      return await this.client.getTransactionReceipt({ hash });
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) return null;
      throw error;
    }
  }

  /** True if the node knows the transaction (pending in its pool, or mined). */
  async isKnown(hash: Hash): Promise<boolean> {
    try {
      await this.client.getTransaction({ hash });
      return true;
    } catch (error) {
      if (error instanceof TransactionNotFoundError) return false;
      throw error;
    }
  }

  /** True when the receipt is of a transaction that used this authorization (AuthorizationUsed log of our token). */
  usedAuthorization(receipt: TransactionReceipt, authorizer: Address, nonce: Hex): boolean {
    if (receipt.status !== 'success') return false;
    const logs = parseEventLogs({ abi: usdcAbi, eventName: 'AuthorizationUsed', logs: receipt.logs, strict: true });
    return logs.some(
      (log) =>
        getAddress(log.address) === this.token &&
        getAddress(log.args.authorizer) === getAddress(authorizer) &&
        log.args.nonce.toLowerCase() === nonce.toLowerCase(),
    );
  }

  /**
   * Finds the transaction that used an authorization from its AuthorizationUsed log: needed when
   * someone relayed our signed authorization before our own transaction was mined.
   */
  findAuthorizationUse(authorizer: Address, nonce: Hex, fromBlock: bigint): Promise<AuthorizationUse | null> {
    return this.findAuthorizationLog('AuthorizationUsed', authorizer, nonce, fromBlock);
  }

  /**
   * The transaction that cancelled the authorization (its AuthorizationCanceled log), or null when
   * it was not cancelled: only someone holding the temporary wallet's key can cancel, and no
   * signature under the nonce can pay the leg any more.
   */
  findCancellation(authorizer: Address, nonce: Hex, fromBlock: bigint): Promise<AuthorizationUse | null> {
    return this.findAuthorizationLog('AuthorizationCanceled', authorizer, nonce, fromBlock);
  }

  // Reads from `fromBlock` (no payout is older than its deposit) to the head, in ranges the node accepts.
  private async findAuthorizationLog(
    eventName: 'AuthorizationUsed' | 'AuthorizationCanceled',
    authorizer: Address,
    nonce: Hex,
    fromBlock: bigint,
  ): Promise<AuthorizationUse | null> {
    return searchLogRanges({
      from: fromBlock,
      to: await this.blockNumber(),
      width: this.logRangeWidth,
      read: async (from, to) => {
        const logs = await this.client.getContractEvents({
          address: this.token,
          abi: usdcAbi,
          eventName,
          args: { authorizer, nonce },
          fromBlock: from,
          toBlock: to,
          strict: true,
        });
        const log = logs.find((entry) => !entry.removed && entry.transactionHash && entry.blockNumber !== null && entry.blockHash);
        return log?.transactionHash && log.blockNumber !== null && log.blockHash
          ? { txHash: log.transactionHash, blockNumber: log.blockNumber, blockHash: log.blockHash }
          : null;
      },
      // An error answer to eth_getLogs is the node refusing the range; an unreachable node is not.
      isRefusal: (error) => error instanceof BaseError && !isTransportError(error),
    });
  }

  transactionCount(address: Address, blockTag: 'latest' | 'pending'): Promise<bigint> {
    return this.client.getTransactionCount({ address, blockTag }).then(BigInt);
  }

  /** Timestamp of the latest block: the clock the token checks validBefore against. */
  async latestTimestamp(): Promise<bigint> {
    return (await this.client.getBlock({ blockTag: 'latest' })).timestamp;
  }

  blockNumber(): Promise<bigint> {
    return this.client.getBlockNumber({ cacheTime: 0 });
  }

  /** Hash of the canonical block at `number`, or undefined when the chain is not that long. */
  async blockHash(number: bigint): Promise<Hash | undefined> {
    try {
      return (await this.client.getBlock({ blockNumber: number })).hash ?? undefined;
    } catch (error) {
      if (error instanceof BlockNotFoundError) return undefined;
      throw error;
    }
  }

  /** The node's answer to the `finalized` block tag, by the one rule of @gateway/chain (readFinalizedTag). */
  finalizedTag(): Promise<FinalizedTagAnswer> {
    return readFinalizedTag(this.client);
  }

  async estimateFees(): Promise<FeeEstimate> {
    const { maxFeePerGas, maxPriorityFeePerGas } = await this.client.estimateFeesPerGas();
    return { maxFeePerGas, maxPriorityFeePerGas };
  }

  estimateGas(from: Address, data: Hex): Promise<bigint> {
    return this.client.estimateGas({ account: from, to: this.token, data });
  }

  sendRawTransaction(rawTx: Hex): Promise<Hash> {
    return this.client.sendRawTransaction({ serializedTransaction: rawTx });
  }

  nativeBalance(address: Address): Promise<bigint> {
    return this.client.getBalance({ address });
  }
}
