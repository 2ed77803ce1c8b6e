import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { createPool } from '@gateway/db/wallet-control';
import { createMetricsServer } from '@gateway/http';
import { walletControlFixture } from '../support/wallet-control-fixture';

const payout = '0x52908400098527886E0F7030069857D2E4169EE7';
const affiliate = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';

const fixture = walletControlFixture('http_layer');
let app: FastifyInstance;
let port: number;

let order = 0;
const nextCallback = () => `https://shop.io/ipn?order_id=http-${++order}`;
const walletCount = async () => Number((await fixture.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM wallets')).rows[0]?.n);

/** Sends bytes as they are (what app.inject cannot send) and reads the answer until the server closes. */
function raw(requestLine: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(`${requestLine}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`, 'latin1'),
    );
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => (data += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const end = data.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = data.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: data.slice(end + 4) });
    });
  });
}

beforeAll(async () => {
  app = await fixture.build();
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
});

describe('malformed requests on the wallet-control host', () => {
  it('answers a bad URL in the error shape, with the framing headers and a request id', async () => {
    for (const [target, code] of [
      ['/%', 'malformed_request'],
      ['/control/%ff', 'malformed_request'],
      ['/control/wallet.php?address=%zz&callback=x', 'invalid_parameter'],
    ] as const) {
      const response = await raw(`GET ${target} HTTP/1.1`);
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({ status: 'error', code });
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['x-request-id']).toBeTruthy();
    }
  });
});

describe('methods', () => {
  it('answers POST /control/wallet.php with 405 and Allow: GET; unknown paths stay 404', async () => {
    const response = await app.inject({ method: 'POST', url: '/control/wallet.php', payload: { address: payout } });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET');
    expect(response.json()).toMatchObject({ status: 'error', code: 'method_not_allowed' });
    expect((await app.inject({ method: 'POST', url: '/control/nope.php' })).statusCode).toBe(404);
  });

  it('never creates a wallet for HEAD (Create Wallet, Affiliate, Custom Affiliate): 405 with Allow: GET', async () => {
    const before = await walletCount();
    for (const [url, extra] of [
      ['/control/wallet.php', {}],
      ['/control/affiliate.php', { affiliate }],
      ['/control/custom-affiliate.php', { affiliate, affiliate_fee: '0.01', merchant_fee: '0.98' }],
    ] as const) {
      const response = await app.inject({ method: 'HEAD', url, query: { address: payout, callback: nextCallback(), ...extra } });
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe('GET');
      expect(response.body).toBe('');
    }
    expect(await walletCount()).toBe(before);
    // GET still creates it.
    expect((await app.inject({ url: '/control/wallet.php', query: { address: payout, callback: nextCallback() } })).statusCode).toBe(200);
    expect(await walletCount()).toBe(before + 1);
  });

  it('keeps HEAD on read-only routes', async () => {
    const convert = await app.inject({ method: 'HEAD', url: '/control/convert.php', query: { value: '10', from: 'USD' } });
    expect(convert.statusCode).toBe(200);
    expect(convert.body).toBe('');
    expect((await app.inject({ method: 'HEAD', url: '/healthz' })).statusCode).toBe(200);
  });
});

describe('metrics', () => {
  it('are not on the API port; the metrics server serves them with /healthz and /readyz', async () => {
    await app.inject({ url: '/control/wallet.php', query: { address: payout, callback: nextCallback() } });
    expect((await app.inject({ url: '/metrics' })).statusCode).toBe(404);
    const metricsServer = await createMetricsServer(app);
    try {
      const metrics = await metricsServer.inject({ url: '/metrics' });
      expect(metrics.statusCode).toBe(200);
      expect(metrics.body).toContain('route="/control/wallet.php"');
      expect((await metricsServer.inject({ url: '/readyz' })).json()).toEqual({ status: 'ok', checks: { postgres: 'ok' } });
    } finally {
      await metricsServer.close();
    }
  });
});

describe('a statement over DATABASE_STATEMENT_TIMEOUT_MS', () => {
  it('is cancelled and the request answered 503 with Retry-After', async () => {
    const pool = createPool({ connectionString: fixture.db.connectionString, schema: fixture.db.schema, max: 2, statementTimeoutMs: 300 });
    const slowApp = await fixture.build(undefined, { pool });
    const locker = await fixture.db.pool.connect();
    try {
      // Another session holds the wallets table: the status lookup waits on it until the timeout.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE wallets IN ACCESS EXCLUSIVE MODE');
      const pending = slowApp.inject({ url: '/control/payment-status.php', query: { ipn_token: 'A'.repeat(32) } });
      const settled = await Promise.race([pending, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 5_000))]);
      await locker.query('ROLLBACK');
      const response = settled ?? (await pending);
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBeDefined();
      expect(response.json()).toMatchObject({ status: 'error', code: 'service_unavailable' });
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      locker.release();
      await slowApp.close();
      await pool.end();
    }
  });
});
