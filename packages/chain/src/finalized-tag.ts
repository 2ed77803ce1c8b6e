import { hexToBigInt, RpcError, RpcRequestError, type Hex } from 'viem';
import type { FinalizedTagAnswer } from '@gateway/domain';

/** A JSON-RPC client that can ask for the `finalized` block (a viem client, or one wrapped to count its failures). */
export interface FinalizedTagClient {
  request(args: { method: 'eth_getBlockByNumber'; params: ['finalized', false] }): Promise<{ number: Hex | null } | null>;
}

/**
 * The node's answer to the `finalized` block tag, one reading for every process that follows
 * finality (packages/domain chain-finality). A block is the tag served. An error answer (the node
 * replied with a JSON-RPC error) or no block is a refusal, which the finality rule weighs. A node
 * that did not answer at all (unreachable, timed out, an HTTP error) is thrown, and decides nothing.
 */
export async function readFinalizedTag(client: FinalizedTagClient): Promise<FinalizedTagAnswer> {
  try {
    const block = await client.request({ method: 'eth_getBlockByNumber', params: ['finalized', false] });
    return block?.number ? { served: true, finalized: hexToBigInt(block.number) } : { served: false };
  } catch (error) {
    if (isErrorAnswer(error)) return { served: false };
    throw error;
  }
}

/** True when the node replied to the request with a JSON-RPC error (anywhere in the error's causes), as opposed to not replying. */
export function isErrorAnswer(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof RpcError || cause instanceof RpcRequestError) return true;
  }
  return false;
}
