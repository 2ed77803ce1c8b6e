import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * pass: forward every request to the node.
 * down: answer every request with 503 (the node is unreachable).
 * hang: accept every request and never answer (a node that stopped responding).
 * lose-next-send: forward the next eth_sendRawTransaction to the node (so it is mined) but answer
 *   502, as if the connection dropped after the send, then go down.
 */
export type RpcProxyMode = 'pass' | 'down' | 'hang' | 'lose-next-send';

/**
 * The answer to `eth_getBlockByNumber("finalized")`. pass: the node's; refuse: a JSON-RPC error,
 * as from a node without the tag; stalledAt: the block at that height, whatever the head does
 * (a chain whose finality stopped).
 */
export type FinalizedTagMode = 'pass' | 'refuse' | { stalledAt: bigint };

type CallId = number | string;

interface JsonRpcCall {
  jsonrpc: '2.0';
  id: CallId;
  method: string;
  params?: unknown[];
}

interface JsonRpcError {
  code: number;
  message: string;
}

interface JsonRpcReply {
  id: CallId;
  result?: unknown;
}

/** A call the proxy waits on before it forwards it (see `beforeCall`). */
interface CallHook {
  matches: (call: JsonRpcCall) => boolean;
  run: () => Promise<void>;
}

// What geth before the merge answered for a block tag it did not know.
const UNKNOWN_TAG_ERROR: JsonRpcError = { code: -32602, message: 'invalid argument 0: hex string without 0x prefix' };

const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * A JSON-RPC endpoint in front of a node for tests: it takes the node away (down, hang, a lost
 * send) and heals it, and it plays a node with limits (no `finalized` tag or a stalled one, a
 * narrow eth_getLogs range, sends it refuses) or a load balancer with a backend on another fork
 * (a wrong block hash, a missing receipt, now and then). Batches are judged call by call.
 */
export class RpcProxy {
  finalizedTag: FinalizedTagMode = 'pass';
  /** eth_getLogs over more blocks than this is refused, as hosted nodes do. */
  maxLogRange: number | undefined;
  /** eth_sendRawTransaction of a transaction paying this address (an ABI word of its calldata) is refused. */
  withholdSendsTo: string | undefined;
  /** eth_getLogs answers lose their logs' `blockTimestamp`, as from a node older than that field (2025). */
  logsWithoutBlockTime = false;
  /** Requests that reached the proxy (answered or not). */
  requests = 0;
  /** Requests answered 503 while down. */
  refused = 0;
  lostSends = 0;
  finalizedTagRefusals = 0;
  logRangesRefused = 0;
  withheldSends = 0;
  /** The block ranges of every eth_getLogs answered while `maxLogRange` is set, inclusive. */
  readonly logRangesServed: [bigint, bigint][] = [];
  /** Answers altered by `misreportBlockHash` and `hideReceipt` (not those of `logsWithoutBlockTime`). */
  misreported = 0;
  private currentMode: RpcProxyMode = 'pass';
  private finalizedTagRefusalsLeft = 0;
  // Block height (hex) → wrong answers left; tx hash (lower-case) → null answers left.
  private readonly wrongBlockHashes = new Map<string, number>();
  private readonly hiddenReceipts = new Map<string, number>();
  private readonly hooks: CallHook[] = [];
  private readonly hanging = new Set<http.ServerResponse>();
  private readonly server: http.Server;

  private constructor(private readonly target: string) {
    this.server = http.createServer((request, response) => {
      this.handle(request, response).catch(() => response.destroy());
    });
  }

  static async start(target: string): Promise<RpcProxy> {
    const proxy = new RpcProxy(target);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get mode(): RpcProxyMode {
    return this.currentMode;
  }

  set mode(next: RpcProxyMode) {
    this.currentMode = next;
    // Requests left hanging are cut when the node heals, so no socket outlives the outage.
    if (next !== 'hang') this.releaseHanging();
  }

  /** The next `times` finalized-tag queries get an error answer, then `finalizedTag`'s answer again. */
  refuseFinalizedTagTimes(times: number): void {
    this.finalizedTagRefusalsLeft = times;
  }

  /**
   * The next `times` answers to eth_getBlockByNumber for block `number` carry another hash, as
   * from a backend that lags on another fork; the node itself is left as it is.
   */
  misreportBlockHash(number: bigint, times = 1): void {
    this.wrongBlockHashes.set(`0x${number.toString(16)}`, times);
  }

  /** The next `times` answers to eth_getTransactionReceipt for `txHash` are null, as from a backend that has not seen it. */
  hideReceipt(txHash: string, times = 1): void {
    this.hiddenReceipts.set(txHash.toLowerCase(), times);
  }

  /**
   * Runs `run` (e.g. a reorg of the node) once, right before the first call that `matches` is
   * forwarded: the caller gets the answer of the node as `run` left it, and every call before
   * it the answer of the node as it was.
   */
  beforeCall(matches: (call: { method: string; params?: unknown[] }) => boolean, run: () => Promise<void>): void {
    this.hooks.push({ matches, run });
  }

  async close(): Promise<void> {
    this.releaseHanging();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private releaseHanging(): void {
    for (const response of this.hanging) response.destroy();
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    this.requests += 1;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (this.mode === 'down') {
      this.refused += 1;
      response.writeHead(503, { 'content-type': 'text/plain' }).end('node unavailable');
      return;
    }
    if (this.mode === 'hang') {
      this.hanging.add(response);
      response.on('close', () => this.hanging.delete(response));
      return;
    }
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpcCall | JsonRpcCall[];
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    const refusals = new Map<CallId, JsonRpcError>();
    for (const call of calls) {
      const refusal = await this.refusal(call);
      if (refusal) refusals.set(call.id, refusal);
    }
    const forwarded = calls.filter((call) => !refusals.has(call.id)).map((call) => this.rewrite(call));
    for (const call of forwarded) await this.runHooks(call);
    const altered = forwarded.filter((call) => this.takeMisreport(call));
    let replies: JsonRpcReply[] = [];
    if (forwarded.length > 0) {
      const upstream = await this.post(Array.isArray(parsed) ? forwarded : forwarded[0]);
      if (this.mode === 'lose-next-send' && forwarded.some((call) => call.method === 'eth_sendRawTransaction')) {
        this.lostSends += 1;
        this.mode = 'down';
        response.writeHead(502).end('bad gateway');
        return;
      }
      if (refusals.size === 0 && altered.length === 0) {
        response.writeHead(upstream.status, JSON_HEADERS).end(upstream.text);
        return;
      }
      const answered = JSON.parse(upstream.text) as JsonRpcReply | JsonRpcReply[];
      replies = Array.isArray(answered) ? answered : [answered];
      for (const call of altered) {
        const reply = replies.find((candidate) => candidate.id === call.id);
        if (reply) reply.result = misreportedAnswer(call, reply.result);
      }
    }
    const byId = new Map(replies.map((reply) => [reply.id, reply]));
    const answers = calls.map((call) => {
      const refusal = refusals.get(call.id);
      return refusal ? { jsonrpc: '2.0', id: call.id, error: refusal } : byId.get(call.id);
    });
    response.writeHead(200, JSON_HEADERS).end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
  }

  /** The error a node with these limits answers instead of forwarding the call, if any. */
  private async refusal(call: JsonRpcCall): Promise<JsonRpcError | undefined> {
    if (isFinalizedTagQuery(call)) {
      if (this.finalizedTagRefusalsLeft === 0 && this.finalizedTag !== 'refuse') return undefined;
      if (this.finalizedTagRefusalsLeft > 0) this.finalizedTagRefusalsLeft -= 1;
      this.finalizedTagRefusals += 1;
      return UNKNOWN_TAG_ERROR;
    }
    if (call.method === 'eth_sendRawTransaction' && this.withholdSendsTo !== undefined) {
      const rawTx = String(call.params?.[0] ?? '').toLowerCase();
      if (!rawTx.includes(this.withholdSendsTo.slice(2).toLowerCase())) return undefined;
      this.withheldSends += 1;
      return { code: -32000, message: 'transaction withheld by the test' };
    }
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

  private async runHooks(call: JsonRpcCall): Promise<void> {
    const index = this.hooks.findIndex((hook) => hook.matches(call));
    if (index < 0) return;
    const [hook] = this.hooks.splice(index, 1);
    await hook!.run();
  }

  /** True when this call's answer is to be altered (and counts it against what is left to alter). */
  private takeMisreport(call: JsonRpcCall): boolean {
    if (call.method === 'eth_getLogs') return this.logsWithoutBlockTime;
    const pending =
      call.method === 'eth_getBlockByNumber'
        ? { map: this.wrongBlockHashes, key: String(call.params?.[0]) }
        : call.method === 'eth_getTransactionReceipt'
          ? { map: this.hiddenReceipts, key: String(call.params?.[0]).toLowerCase() }
          : undefined;
    const left = pending?.map.get(pending.key) ?? 0;
    if (!pending || left === 0) return false;
    if (left === 1) pending.map.delete(pending.key);
    else pending.map.set(pending.key, left - 1);
    this.misreported += 1;
    return true;
  }

  /** The call with a stalled finalized tag pointed at its block. */
  private rewrite(call: JsonRpcCall): JsonRpcCall {
    if (!isFinalizedTagQuery(call) || typeof this.finalizedTag !== 'object') return call;
    return { ...call, params: [`0x${this.finalizedTag.stalledAt.toString(16)}`, ...(call.params ?? []).slice(1)] };
  }

  private async blockOf(tag: string | undefined): Promise<bigint> {
    if (tag === undefined || tag === 'latest' || tag === 'pending' || tag === 'safe' || tag === 'finalized') {
      const { text } = await this.post({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] });
      return BigInt((JSON.parse(text) as { result: string }).result);
    }
    return tag === 'earliest' ? 0n : BigInt(tag);
  }

  // A connection of its own per request (no agent): nothing pooled outlives the node or the test.
  private post(payload: unknown): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const request = http.request(this.target, { method: 'POST', agent: false, headers: JSON_HEADERS }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 502, text: Buffer.concat(chunks).toString('utf8') }));
        answer.on('error', reject);
      });
      request.on('error', reject);
      request.end(JSON.stringify(payload));
    });
  }
}

/** A block with another hash (the bytes of the real one reversed), no receipt, or logs without their block's time. */
function misreportedAnswer(call: JsonRpcCall, result: unknown): unknown {
  if (call.method === 'eth_getLogs' && Array.isArray(result)) {
    return result.map(({ blockTimestamp: _dropped, ...log }: Record<string, unknown>) => log);
  }
  if (call.method === 'eth_getTransactionReceipt' || result === null || typeof result !== 'object') return null;
  const block = result as { hash?: string };
  if (typeof block.hash !== 'string') return result;
  return { ...block, hash: `0x${[...block.hash.slice(2)].reverse().join('')}` };
}

function isFinalizedTagQuery(call: JsonRpcCall): boolean {
  return call.method === 'eth_getBlockByNumber' && call.params?.[0] === 'finalized';
}
