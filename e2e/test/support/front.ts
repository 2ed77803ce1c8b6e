// What stands before an API app in production (the Ingress, or the TLS proxy on one VM): a fixed
// URL whose requests go to one replica, then to another once it is routed there. Requests already
// sent to the old replica finish there; a request the front cannot pass on is answered 502, so a
// load test counts it as failed.
import { Agent, createServer, request } from 'node:http';
import type { Socket } from 'node:net';

export interface Front {
  /** Sends new requests to `upstream` (http://127.0.0.1:<port>) from now on. */
  route(upstream: string): void;
  close(): Promise<void>;
}

export async function startFront(port: number, upstream: string): Promise<Front> {
  let target = new URL(upstream);
  // One agent per replica: an old replica's kept-alive connections are never reused for a new one's requests.
  const agents = new Map<string, Agent>();
  const agentFor = (url: URL) => {
    let agent = agents.get(url.host);
    if (!agent) {
      agent = new Agent({ keepAlive: true });
      agents.set(url.host, agent);
    }
    return agent;
  };
  const sockets = new Set<Socket>();
  const server = createServer((incoming, outgoing) => {
    const to = target;
    const proxied = request(
      { host: to.hostname, port: to.port, method: incoming.method, path: incoming.url, headers: incoming.headers, agent: agentFor(to) },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    proxied.on('error', (error) => {
      if (outgoing.headersSent) outgoing.destroy(error);
      else outgoing.writeHead(502, { 'content-type': 'text/plain' }).end(`front: ${error.message}`);
    });
    incoming.pipe(proxied);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    route(next) {
      target = new URL(next);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      for (const agent of agents.values()) agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
