import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * pass: forward every JSON-RPC request to the node.
 * down: answer every request with 503 (the node is unreachable).
 * lose-next-send: forward the next eth_sendRawTransaction to the node (so it is mined) but answer
 *   502, as if the connection dropped after the send, then go down.
 */
export type ProxyMode = 'pass' | 'down' | 'lose-next-send';

/**
 * The answer to `eth_getBlockByNumber("finalized")`. pass: the node's; refuse: a JSON-RPC error,
 * as from a node without the tag; stalledAt: the block at that height, whatever the head does.
 */
export type FinalizedTagMode = 'pass' | 'refuse' | { stalledAt: bigint };

interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number | string;
  method: string;
  params?: unknown[];
}

// What geth before the merge answered for a block tag it did not know.
const UNKNOWN_TAG_ERROR = { code: -32602, message: 'invalid argument 0: hex string without 0x prefix' };

/** A switchable JSON-RPC proxy in front of anvil, to take "the RPC" away from the worker. */
export class RpcProxy {
  mode: ProxyMode = 'pass';
  finalizedTag: FinalizedTagMode = 'pass';
  /** eth_getLogs over more blocks than this is refused, as hosted nodes do. */
  maxLogRange: number | undefined;
  lostSends = 0;
  refused = 0;
  logRangesRefused = 0;
  /** The block ranges of every eth_getLogs answered, inclusive. */
  readonly logRangesServed: [bigint, bigint][] = [];
  private readonly server: http.Server;

  private constructor(private readonly target: string) {
    this.server = http.createServer((request, response) => void this.handle(request, response));
  }

  static async start(target: string): Promise<RpcProxy> {
    const proxy = new RpcProxy(target);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    if (this.mode === 'down') {
      this.refused += 1;
      response.writeHead(503).end('node unavailable');
      return;
    }
    const call = JSON.parse(body) as JsonRpcRequest;
    const refusal = await this.refusal(call);
    if (refusal) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: refusal }));
      return;
    }
    const forwarded = this.rewrite(call) ?? body;
    const upstream = await fetch(this.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: forwarded });
    const text = await upstream.text();
    if (this.mode === 'lose-next-send' && body.includes('eth_sendRawTransaction')) {
      this.lostSends += 1;
      this.mode = 'down';
      response.writeHead(502).end('bad gateway');
      return;
    }
    response.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
  }

  /** The error a node with these limits answers instead of forwarding, if any. */
  private async refusal(call: JsonRpcRequest): Promise<{ code: number; message: string } | undefined> {
    if (call.method === 'eth_getBlockByNumber' && call.params?.[0] === 'finalized' && this.finalizedTag === 'refuse') return UNKNOWN_TAG_ERROR;
    if (call.method !== 'eth_getLogs' || this.maxLogRange === undefined) return undefined;
    const filter = (call.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string };
    const from = await this.blockOf(filter.fromBlock);
    const to = await this.blockOf(filter.toBlock);
    if (to - from + 1n > BigInt(this.maxLogRange)) {
      this.logRangesRefused += 1;
      return { code: -32600, message: `eth_getLogs is limited to a ${this.maxLogRange} block range` };
    }
    this.logRangesServed.push([from, to]);
    return undefined;
  }

  /** The request with a stalled finalized tag pointed at its block, or undefined to forward it as is. */
  private rewrite(call: JsonRpcRequest): string | undefined {
    if (call.method !== 'eth_getBlockByNumber' || call.params?.[0] !== 'finalized' || typeof this.finalizedTag !== 'object') return undefined;
    return JSON.stringify({ ...call, params: [`0x${this.finalizedTag.stalledAt.toString(16)}`, ...call.params.slice(1)] });
  }

  private async blockOf(tag: string | undefined): Promise<bigint> {
    if (tag === undefined || tag === 'latest' || tag === 'pending' || tag === 'safe' || tag === 'finalized') {
      const upstream = await fetch(this.target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] }),
      });
      return BigInt(((await upstream.json()) as { result: string }).result);
    }
    return tag === 'earliest' ? 0n : BigInt(tag);
  }
}
