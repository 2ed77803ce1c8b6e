import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export const FIXTURES = join(__dirname, 'fixtures');
export const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A loopback HTTP server standing in for a rate API: each path answers with its handler. */
export interface FixtureServer {
  url(path: string): string;
  route(path: string, handler: Handler): void;
  requests(path: string): number;
  close(): Promise<void>;
}

export async function startFixtureServer(): Promise<FixtureServer> {
  const routes = new Map<string, Handler>();
  const counts = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const handler = routes.get(path);
    if (handler) handler(request, response);
    else response.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    route: (path, handler) => routes.set(path, handler),
    requests: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const serve =
  (body: string, contentType: string, status = 200): Handler =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': contentType }).end(body);
  };
