import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProxyMode = 'pass' | 'fail' | 'hang';

export interface RpcProxy {
  url: string;
  /** pass: forward to the node; fail: answer 503; hang: accept and never answer. */
  setMode(mode: ProxyMode): void;
  /** Requests that reached the proxy (answered or not). */
  readonly requests: number;
  close(): Promise<void>;
}

/** A JSON-RPC endpoint in front of a node that a test can make fail or hang, then heal. */
export async function startRpcProxy(upstream: string): Promise<RpcProxy> {
  let mode: ProxyMode = 'pass';
  let requests = 0;
  const hanging = new Set<http.ServerResponse>();
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
      const forward = http.request(
        upstream,
        { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' });
          answer.pipe(response);
        },
      );
      forward.on('error', () => response.destroy());
      forward.end(Buffer.concat(chunks));
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
    get requests() {
      return requests;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
