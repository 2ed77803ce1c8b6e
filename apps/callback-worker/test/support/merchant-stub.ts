import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCallback {
  /** Path and query exactly as they arrived on the wire. */
  url: string;
  headers: IncomingHttpHeaders;
  receivedAt: number;
}

export type StubAnswer =
  | { status: number; body?: string; contentType?: string; delayMs?: number }
  | 'hang'
  /** 200 at once, then one byte of body a second, never finishing: never silent, never done. */
  | 'drip';

/**
 * A real HTTP merchant on a loopback address that records every callback exactly as received.
 * Answers 200 "ok" unless a handler for the path says otherwise.
 */
export class MerchantStub {
  readonly received: ReceivedCallback[] = [];
  private readonly handlers = new Map<string, (request: ReceivedCallback, nth: number) => StubAnswer>();
  private readonly server: Server;

  constructor(private readonly host = '127.0.0.1') {
    this.server = createServer((req, res) => this.answer(req, res));
  }

  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(port, this.host, resolve));
    return this;
  }

  get origin(): string {
    return `http://${this.host}:${(this.server.address() as AddressInfo).port}`;
  }

  /** `nth` counts the calls to this path, from 1. */
  on(path: string, handler: (request: ReceivedCallback, nth: number) => StubAnswer): void {
    this.handlers.set(path, handler);
  }

  receivedOn(path: string): ReceivedCallback[] {
    return this.received.filter((request) => request.url.split('?')[0] === path);
  }

  /** Cuts every open connection (requests left hanging end with a socket error); keeps listening. */
  dropConnections(): void {
    this.server.closeAllConnections();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const request = { url: req.url ?? '', headers: req.headers, receivedAt: Date.now() };
    this.received.push(request);
    const path = request.url.split('?')[0] ?? '';
    const handler = this.handlers.get(path);
    const answer = handler ? handler(request, this.receivedOn(path).length) : { status: 200, body: 'ok' };
    if (answer === 'hang') return;
    if (answer === 'drip') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100000' });
      res.write('o');
      const timer = setInterval(() => res.write('k'), 1_000);
      res.on('close', () => clearInterval(timer));
      return;
    }
    const send = () => {
      res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain' });
      res.end(answer.body ?? '');
    };
    if (answer.delayMs) setTimeout(send, answer.delayMs);
    else send();
  }
}

/** A port nobody listens on (bound, then released): connections to it are refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
