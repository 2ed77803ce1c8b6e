import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * pass: forward every JSON-RPC request to the node.
 * down: answer every request with 503 (the node is unreachable).
 * lose-next-send: forward the next eth_sendRawTransaction to the node (so it is mined) but answer
 *   502, as if the connection dropped after the send, then go down.
 */
export type ProxyMode = 'pass' | 'down' | 'lose-next-send';

/** A switchable JSON-RPC proxy in front of anvil, to take "the RPC" away from the worker. */
export class RpcProxy {
  mode: ProxyMode = 'pass';
  lostSends = 0;
  refused = 0;
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
    const upstream = await fetch(this.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await upstream.text();
    if (this.mode === 'lose-next-send' && body.includes('eth_sendRawTransaction')) {
      this.lostSends += 1;
      this.mode = 'down';
      response.writeHead(502).end('bad gateway');
      return;
    }
    response.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
  }
}
