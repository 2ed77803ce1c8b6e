import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicClient, http } from 'viem';
import { isErrorAnswer, readFinalizedTag } from '../src/finalized-tag';

type Answer = { status: number; body: unknown } | 'hang up';

/** A JSON-RPC node on a local port whose every answer is `answer`. */
async function node(answer: () => Answer): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    request.on('end', () => {
      const reply = answer();
      if (reply === 'hang up') return request.socket.destroy();
      const { id } = JSON.parse(raw) as { id: number };
      const body = reply.status === 200 ? { jsonrpc: '2.0', id, ...(reply.body as object) } : reply.body;
      response.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let answer: Answer;
let running: { url: string; server: Server };

beforeAll(async () => {
  running = await node(() => answer);
});

afterAll(() => new Promise((resolve) => running.server.close(resolve)));

const client = () => createPublicClient({ transport: http(running.url, { retryCount: 0, timeout: 2_000 }) });

describe('readFinalizedTag: one reading of the finalized tag for the watcher and settlement', () => {
  it('a block is the tag served, at its number', async () => {
    answer = { status: 200, body: { result: { number: '0x2a', hash: `0x${'1'.repeat(64)}` } } };
    await expect(readFinalizedTag(client())).resolves.toEqual({ served: true, finalized: 42n });
  });

  it('no block, or a JSON-RPC error answer, is a refusal', async () => {
    answer = { status: 200, body: { result: null } };
    await expect(readFinalizedTag(client())).resolves.toEqual({ served: false });
    answer = { status: 200, body: { error: { code: -32000, message: 'finalized block not found' } } };
    await expect(readFinalizedTag(client())).resolves.toEqual({ served: false });
    answer = { status: 200, body: { error: { code: -32601, message: 'the method does not exist' } } };
    await expect(readFinalizedTag(client())).resolves.toEqual({ served: false });
  });

  it('a node that did not answer (HTTP error, connection dropped) is thrown: it decides nothing', async () => {
    answer = { status: 502, body: 'bad gateway' };
    await expect(readFinalizedTag(client())).rejects.toThrow(/HTTP request failed/);
    answer = 'hang up';
    await expect(readFinalizedTag(client())).rejects.toThrow();
  });

  it('an error answer is recognised through a wrapper that keeps it as its cause', async () => {
    answer = { status: 200, body: { error: { code: -32000, message: 'no' } } };
    const wrapped = await client()
      .request({ method: 'eth_blockNumber' })
      .catch((error: unknown) => new Error('eth_blockNumber failed', { cause: error }));
    expect(isErrorAnswer(wrapped)).toBe(true);
    expect(isErrorAnswer(new Error('eth_blockNumber failed', { cause: new TypeError('fetch failed') }))).toBe(false);
  });
});
