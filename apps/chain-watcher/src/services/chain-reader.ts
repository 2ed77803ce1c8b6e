import {
  createPublicClient,
  http,
  hexToBigInt,
  hexToNumber,
  toEventSelector,
  toHex,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { isErrorAnswer, readFinalizedTag, tokenDecimalsProblem } from '@gateway/chain';
import type { FinalizedTagAnswer } from '@gateway/domain';
import type { WatcherMetrics } from '../metrics';

export const TRANSFER_TOPIC = toEventSelector('Transfer(address,address,uint256)');

/** One ERC-20 Transfer log, addresses lower-case. */
export interface TransferLog {
  /** The contract that emitted it. */
  token: Address;
  txHash: Hash;
  logIndex: number;
  blockNumber: bigint;
  blockHash: Hash;
  /** The block's time, when the node gives it with the log (`blockTimestamp`: recent geth, bor and anvil do). */
  blockTime?: Date;
  from: Address;
  to: Address;
  value: bigint;
}

/** What a transaction's receipt says: the block it is in, and the token's Transfer logs it emitted. */
export interface TransactionPlace {
  blockNumber: bigint;
  blockHash: Hash;
  /** Empty when the transaction reverted (it moved nothing). */
  transfers: TransferLog[];
}

export interface ChainTip {
  head: bigint;
  /** What the node answered to the `finalized` block tag this time. */
  finalizedTag: FinalizedTagAnswer;
}

/** A JSON-RPC call failed or timed out; `answered` tells whether the node replied with an error. */
export class RpcCallError extends Error {
  constructor(
    readonly method: string,
    readonly answered: boolean,
    cause: unknown,
  ) {
    // The cause (viem's error, with the status or the timeout) is logged along with it.
    super(`${method} failed`, { cause });
    this.name = 'RpcCallError';
  }
}

export interface ChainReaderOptions {
  rpcUrl: string;
  timeoutMs: number;
  metrics: WatcherMetrics;
}

/**
 * The few JSON-RPC calls the watcher makes, each failing fast (no transport retries: the watcher
 * retries whole rounds with its own backoff) and counted when it fails. Calls made together go
 * out as one JSON-RPC batch.
 */
export class ChainReader {
  private readonly client: PublicClient;

  constructor(private readonly options: ChainReaderOptions) {
    this.client = createPublicClient({
      transport: http(options.rpcUrl, { retryCount: 0, timeout: options.timeoutMs, batch: { batchSize: 100, wait: 0 } }),
    });
  }

  async chainId(): Promise<number> {
    return hexToNumber(await this.call('eth_chainId', () => this.client.request({ method: 'eth_chainId' })));
  }

  /** Why the gateway cannot count in `token` (its decimals() is not 6), or undefined. */
  tokenDecimalsProblem(token: Address): Promise<string | undefined> {
    return this.call('eth_call', () => tokenDecimalsProblem(this.client, token));
  }

  async tip(): Promise<ChainTip> {
    const [head, finalizedTag] = await Promise.all([
      this.call('eth_blockNumber', () => this.client.request({ method: 'eth_blockNumber' })),
      this.finalizedTag(),
    ]);
    return { head: hexToBigInt(head), finalizedTag };
  }

  /** The canonical block at `number`, its hash and time, or undefined when the chain is not that long. */
  async blockAt(number: bigint): Promise<{ hash: Hash; time: Date } | undefined> {
    const block = await this.call('eth_getBlockByNumber', () =>
      this.client.request({ method: 'eth_getBlockByNumber', params: [toHex(number), false] }),
    );
    return block?.hash ? { hash: block.hash.toLowerCase() as Hash, time: blockTime(block.timestamp) } : undefined;
  }

  /** Hash of the canonical block at `number`, or undefined when the chain is not that long. */
  async blockHash(number: bigint): Promise<Hash | undefined> {
    return (await this.blockAt(number))?.hash;
  }

  /**
   * When each block of `hashes` was made (its header's timestamp), for the logs a node gave
   * without their block's time: one batched eth_getBlockByHash each. A block the node no longer
   * knows (reorged away) is left out.
   */
  async blockTimes(hashes: readonly Hash[]): Promise<Map<Hash, Date>> {
    const blocks = await Promise.all(
      hashes.map((hash) =>
        this.call('eth_getBlockByHash', () => this.client.request({ method: 'eth_getBlockByHash', params: [hash, false] })),
      ),
    );
    return new Map(
      hashes.flatMap((hash, i) => {
        const block = blocks[i];
        return block ? [[hash, blockTime(block.timestamp)] as const] : [];
      }),
    );
  }

  async blockHashes(numbers: readonly bigint[]): Promise<Map<bigint, Hash | undefined>> {
    const hashes = await Promise.all(numbers.map((number) => this.blockHash(number)));
    return new Map(numbers.map((number, i) => [number, hashes[i]]));
  }

  /**
   * Transfer logs of the `tokens` in blocks `from`..`to` (inclusive), in chain order: one
   * eth_getLogs whatever the number of tokens (its `address` filter takes a list).
   */
  async transferLogs(tokens: readonly Address[], from: bigint, to: bigint): Promise<TransferLog[]> {
    const logs = await this.call('eth_getLogs', () =>
      this.client.request({
        method: 'eth_getLogs',
        params: [{ address: [...tokens], fromBlock: toHex(from), toBlock: toHex(to), topics: [TRANSFER_TOPIC] }],
      }),
    );
    const wanted = new Set(tokens.map((token) => token.toLowerCase()));
    // A node that ignores part of the filter must not make a deposit of another contract.
    return logs.map(toTransferLog).filter((log): log is TransferLog => log !== undefined && wanted.has(log.token));
  }

  /**
   * Where the transaction is, by its receipt (a read independent of the block-hash answers), with
   * the Transfer logs of `token` it emitted; undefined when the node knows no receipt for it.
   */
  async transactionPlace(txHash: Hash, token: Address): Promise<TransactionPlace | undefined> {
    const receipt = await this.call('eth_getTransactionReceipt', () =>
      this.client.request({ method: 'eth_getTransactionReceipt', params: [txHash] }),
    );
    if (!receipt?.blockHash || !receipt.blockNumber) return undefined;
    const ours = receipt.status === '0x1' ? receipt.logs.filter((log) => log.address.toLowerCase() === token.toLowerCase()) : [];
    return {
      blockNumber: hexToBigInt(receipt.blockNumber),
      blockHash: receipt.blockHash.toLowerCase() as Hash,
      transfers: ours
        .filter((log) => log.topics[0] === TRANSFER_TOPIC)
        .map(toTransferLog)
        .filter((log) => log !== undefined),
    };
  }

  /** Asked every round (readFinalizedTag's rule); a refusal is counted as a failed call too, a node that did not answer fails the round. */
  private finalizedTag(): Promise<FinalizedTagAnswer> {
    return readFinalizedTag({ request: (args) => this.call('eth_getBlockByNumber', () => this.client.request(args)) });
  }

  private async call<T>(method: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      this.options.metrics.rpcErrors.inc({ method });
      throw new RpcCallError(method, isErrorAnswer(error), error);
    }
  }
}

type RpcLog = {
  address: Address;
  removed?: boolean;
  topics: Hex[];
  data: Hex;
  blockHash: Hash | null;
  blockNumber: Hex | null;
  /** Not in every node's answer (an addition to the JSON-RPC spec of 2025). */
  blockTimestamp?: Hex | null;
  transactionHash: Hash | null;
  logIndex: Hex | null;
};

function toTransferLog(log: RpcLog): TransferLog | undefined {
  // An ERC-20 Transfer has from and to indexed; anything else with this topic is not one.
  if (log.removed || log.topics.length !== 3 || log.blockHash === null || log.transactionHash === null) return undefined;
  if (log.blockNumber === null || log.logIndex === null || log.data.length !== 66) return undefined;
  return {
    token: log.address.toLowerCase() as Address,
    txHash: log.transactionHash.toLowerCase() as Hash,
    logIndex: hexToNumber(log.logIndex),
    blockNumber: hexToBigInt(log.blockNumber),
    blockHash: log.blockHash.toLowerCase() as Hash,
    ...(log.blockTimestamp ? { blockTime: blockTime(log.blockTimestamp) } : {}),
    from: topicAddress(log.topics[1]),
    to: topicAddress(log.topics[2]),
    value: hexToBigInt(log.data),
  };
}

/** A block's timestamp (seconds since the epoch, as the node gives it) as a time. */
function blockTime(timestamp: Hex): Date {
  return new Date(hexToNumber(timestamp) * 1000);
}

function topicAddress(topic: Hex | undefined): Address {
  return `0x${(topic ?? '').slice(26).toLowerCase()}` as Address;
}
