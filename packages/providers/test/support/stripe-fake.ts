import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';

/**
 * A minimal local Stripe for app tests: POST /v1/crypto/onramp_sessions answered with a session
 * (cos_ id, hosted onramp redirect_url), every request recorded with its form. The adapter's own
 * tests check the request field by field against a fuller fake.
 */
export interface StripeFake {
  url: string;
  requests: { path: string; headers: IncomingHttpHeaders; form: URLSearchParams }[];
  close(): Promise<void>;
}

export async function startStripeFake(): Promise<StripeFake> {
  const requests: StripeFake['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      requests.push({ path: req.url ?? '', headers: req.headers, form });
      if (req.method !== 'POST' || req.url !== '/v1/crypto/onramp_sessions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"Unrecognized request URL"}}');
        return;
      }
      const id = `cos_${randomBytes(12).toString('hex')}`;
      const body = {
        id,
        object: 'crypto.onramp_session',
        status: 'initialized',
        redirect_url: `https://crypto.link.com?session_hash=${id}`,
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
