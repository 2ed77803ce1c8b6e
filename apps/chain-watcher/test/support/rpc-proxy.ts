import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProxyMode = 'pass' | 'fail' | 'hang';

/**
 * What the proxy answers for `eth_getBlockByNumber("finalized")`:
 * pass: the node's own answer; refuse: a JSON-RPC error, as a node without the tag answers;
 * stalled: the block at that height, whatever the head does (a chain whose finality stopped).
 */
export type FinalizedTagMode = 'pass' | 'refuse' | { stalledAt: bigint };

export interface RpcProxy {
  url: string;
  /** pass: forward to the node; fail: answer 503; hang: accept and never answer. */
  setMode(mode: ProxyMode): void;
  setFinalizedTag(mode: FinalizedTagMode): void;
  /** The next `times` finalized-tag queries get an error answer, then `setFinalizedTag`'s mode again. */
  refuseFinalizedTagTimes(times: number): void;
  /** Requests that reached the proxy (answered or not). */
  readonly requests: number;
  /** Finalized-tag queries answered with an error so far. */
  readonly finalizedTagRefusals: number;
  close(): Promise<void>;
}

interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number | string;
  method: string;
  params?: unknown[];
}

// What geth before the merge answered for a block tag it did not know.
const UNKNOWN_TAG_ERROR = { code: -32602, message: 'invalid argument 0: hex string without 0x prefix' };

const isFinalizedTagQuery = (request: JsonRpcRequest) =>
  request.method === 'eth_getBlockByNumber' && Array.isArray(request.params) && request.params[0] === 'finalized';

/** A JSON-RPC endpoint in front of a node that a test can make fail or hang, then heal, and whose finality it controls. */
export async function startRpcProxy(upstream: string): Promise<RpcProxy> {
  let mode: ProxyMode = 'pass';
  let finalizedTag: FinalizedTagMode = 'pass';
  let refusalsLeft = 0;
  let refusals = 0;
  let requests = 0;
  const hanging = new Set<http.ServerResponse>();

  const forward = (body: Buffer): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const request = http.request(
        upstream,
        { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => resolve({ status: answer.statusCode ?? 502, text: Buffer.concat(chunks).toString('utf8') }));
          answer.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });

  /** Rewrites stalled finalized-tag queries; returns the ids whose answer becomes an error. */
  const rewrite = (calls: JsonRpcRequest[]): Set<JsonRpcRequest['id']> => {
    const refused = new Set<JsonRpcRequest['id']>();
    for (const call of calls) {
      if (!isFinalizedTagQuery(call)) continue;
      if (refusalsLeft > 0 || finalizedTag === 'refuse') {
        if (refusalsLeft > 0) refusalsLeft -= 1;
        refusals += 1;
        refused.add(call.id);
      } else if (finalizedTag !== 'pass') {
        call.params = [`0x${finalizedTag.stalledAt.toString(16)}`, ...(call.params ?? []).slice(1)];
      }
    }
    return refused;
  };

  const answer = async (body: Buffer, response: http.ServerResponse): Promise<void> => {
    const parsed = JSON.parse(body.toString('utf8')) as JsonRpcRequest | JsonRpcRequest[];
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    const refused = rewrite(calls);
    const upstreamAnswer = await forward(Buffer.from(JSON.stringify(parsed)));
    if (refused.size === 0) {
      response.writeHead(upstreamAnswer.status, { 'content-type': 'application/json' }).end(upstreamAnswer.text);
      return;
    }
    const replies = JSON.parse(upstreamAnswer.text) as { id: JsonRpcRequest['id'] } | { id: JsonRpcRequest['id'] }[];
    const patch = (reply: { id: JsonRpcRequest['id'] }) =>
      refused.has(reply.id) ? { jsonrpc: '2.0', id: reply.id, error: UNKNOWN_TAG_ERROR } : reply;
    const patched = Array.isArray(replies) ? replies.map(patch) : patch(replies);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(patched));
  };

  const server = http.createServer((request, response) => {
    requests += 1;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (mode === 'fail') {
        response.writeHead(503, { 'content-type': 'text/plain' }).end('node unavailable');
        return;
      }
      if (mode === 'hang') {
        hanging.add(response);
        response.on('close', () => hanging.delete(response));
        return;
      }
      answer(Buffer.concat(chunks), response).catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setMode(next) {
      mode = next;
      if (next !== 'hang') for (const response of hanging) response.destroy();
    },
    setFinalizedTag(next) {
      finalizedTag = next;
    },
    refuseFinalizedTagTimes(times) {
      refusalsLeft = times;
    },
    get requests() {
      return requests;
    },
    get finalizedTagRefusals() {
      return refusals;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
