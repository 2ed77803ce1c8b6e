import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { isIP, type AddressInfo, type LookupFunction } from 'node:net';
import { constants } from 'node:os';
import {
  createCallbackHttpClient,
  DnsLookupError,
  SsrfRefusedError,
  type CallbackHttpClient,
  type CallbackHttpClientOptions,
} from '../src';

const LOCAL_STACK = ['127.0.0.0/8', '::1/128'];
// undici runs its timeouts on a coarse timer that can fire up to about a second late.
const UNDICI_TIMER_RESOLUTION_MS = 1100;

interface StubServer {
  url: string;
  port: number;
  connections: number;
  requests: IncomingHttpHeaders[];
  close(): Promise<void>;
}

const servers: StubServer[] = [];
const clients: CallbackHttpClient[] = [];

async function startServer(handler: RequestListener): Promise<StubServer> {
  const server: Server = createServer((request, response) => {
    stub.requests.push(request.headers);
    handler(request, response);
  });
  server.on('connection', () => {
    stub.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stub: StubServer = {
    url: `http://127.0.0.1:${port}`,
    port,
    connections: 0,
    requests: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(stub);
  return stub;
}

function client(overrides: Partial<CallbackHttpClientOptions> = {}): CallbackHttpClient {
  const created = createCallbackHttpClient({
    connectTimeoutMs: 200,
    headersTimeoutMs: 200,
    bodyTimeoutMs: 200,
    attemptTimeoutMs: 5_000,
    maxResponseBytes: 64 * 1024,
    allowedCidrs: LOCAL_STACK,
    userAgent: 'gateway-callbacks/test',
    ...overrides,
  });
  clients.push(created);
  return created;
}

/** A resolver that answers every name with the given addresses and records what it was asked. */
function resolvingTo(addresses: string[], asked: string[] = []): LookupFunction {
  return (hostname, options, callback) => {
    asked.push(hostname);
    const entries = addresses.map((address) => ({ address, family: isIP(address) }));
    if (options.all) callback(null, entries);
    else callback(null, entries[0]?.address ?? '', entries[0]?.family);
  };
}

interface TcpHandle {
  connect(...args: unknown[]): number;
  connect6(...args: unknown[]): number;
}

/** The prototype of the TCP handle under every net.Socket, where connect() reaches the kernel. */
function tcpHandle(): TcpHandle {
  return (process as unknown as { binding(name: 'tcp_wrap'): { TCP: { prototype: TcpHandle } } }).binding('tcp_wrap').TCP.prototype;
}

/**
 * Throws instead of letting any socket open a TCP connection, so a refused URL cannot reach the
 * network even if the policy were broken. The TCP handle is below net.Socket's own DNS lookup,
 * which is where names are checked.
 */
function forbidConnections(): { attempts(): number } {
  const spies = (['connect', 'connect6'] as const).map((method) =>
    jest.spyOn(tcpHandle(), method).mockImplementation(() => {
      throw new Error('a TCP connection was attempted');
    }),
  );
  return { attempts: () => spies.reduce((total, spy) => total + spy.mock.calls.length, 0) };
}

afterEach(async () => {
  jest.restoreAllMocks();
  await Promise.all(clients.splice(0).map((created) => created.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('delivery', () => {
  it('answers ok for a 2xx and keeps the first KiB of the body, without cutting a character', async () => {
    const body = `x${'é'.repeat(600)}`;
    const server = await startServer((_request, response) => response.end(body));
    const result = await client().get(`${server.url}/cb?order=7`);
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(result.error).toBeUndefined();
    expect(result.bodyExcerpt).toBe(`x${'é'.repeat(511)}`);
    expect(Buffer.byteLength(result.bodyExcerpt)).toBeLessThanOrEqual(1024);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('sends the path and query as given, the User-Agent and the caller headers', async () => {
    let requestUrl: string | undefined;
    const server = await startServer((request, response) => {
      requestUrl = request.url;
      response.end();
    });
    await client().get(`${server.url}/cb.php?a=%20b&a=+&c=%2B#frag`, {
      'x-gateway-signature': 't=1,v1=abc',
      'X-Gateway-Delivery-Id': 'd-1',
      'User-Agent': 'spoofed',
    });
    expect(requestUrl).toBe('/cb.php?a=%20b&a=+&c=%2B');
    expect(server.requests[0]).toMatchObject({
      'user-agent': 'gateway-callbacks/test',
      'x-gateway-signature': 't=1,v1=abc',
      'x-gateway-delivery-id': 'd-1',
    });
  });

  it('reports a 5xx as a retryable http_error with the body excerpt', async () => {
    const server = await startServer((_request, response) => {
      response.statusCode = 500;
      response.end('database down');
    });
    expect(await client().get(server.url)).toMatchObject({
      ok: false,
      statusCode: 500,
      bodyExcerpt: 'database down',
      error: { code: 'http_error', retryable: true },
    });
  });

  it('retries 4xx too, 410 included', async () => {
    const server = await startServer((_request, response) => {
      response.statusCode = 410;
      response.end();
    });
    expect(await client().get(server.url)).toMatchObject({ ok: false, error: { code: 'http_error', retryable: true } });
  });

  it('does not follow a redirect and counts it as a failure', async () => {
    const server = await startServer((request, response) => {
      response.statusCode = request.url === '/moved' ? 200 : 302;
      response.setHeader('location', '/moved');
      response.end();
    });
    const result = await client().get(`${server.url}/cb`);
    expect(result).toMatchObject({ ok: false, statusCode: 302, error: { code: 'http_error', retryable: true } });
    expect(result.error?.message).toMatch(/redirects are not followed/);
    expect(server.requests).toHaveLength(1);
  });
});

describe('response size', () => {
  const oversized =
    (statusCode: number): RequestListener =>
    (_request, response) => {
      response.statusCode = statusCode;
      response.write('a'.repeat(4096));
      // Never ends: the client must stop reading on its own.
      const timer = setInterval(() => response.write('a'.repeat(4096)), 5);
      response.on('close', () => clearInterval(timer));
    };

  it('stops reading a huge 2xx body and still counts the callback as delivered', async () => {
    const server = await startServer(oversized(200));
    const result = await client({ maxResponseBytes: 16 * 1024 }).get(server.url);
    expect(result).toMatchObject({
      ok: true,
      statusCode: 200,
      error: { code: 'response_too_large', retryable: false },
    });
    expect(result.bodyExcerpt).toBe('a'.repeat(1024));
  });

  it('reports a huge non-2xx body as the http_error it is', async () => {
    const server = await startServer(oversized(503));
    const result = await client({ maxResponseBytes: 16 * 1024 }).get(server.url);
    expect(result).toMatchObject({ ok: false, statusCode: 503, error: { code: 'http_error', retryable: true } });
    expect(result.error?.message).toMatch(/too large/);
  });
});

describe('timeouts and connection failures', () => {
  it('gives up when no connection is made within connectTimeoutMs', async () => {
    const silentResolver: LookupFunction = () => undefined;
    const result = await client({ connectTimeoutMs: 150, lookup: silentResolver }).get('http://merchant.test/cb');
    expect(result).toMatchObject({ ok: false, error: { code: 'timeout', retryable: true } });
    expect(result.error?.message).toMatch(/no connection within 150 ms/);
    expect(result.durationMs).toBeLessThan(150 + UNDICI_TIMER_RESOLUTION_MS);
  });

  it('gives up on a server that never answers after headersTimeoutMs', async () => {
    const server = await startServer(() => undefined);
    const result = await client({ headersTimeoutMs: 150 }).get(server.url);
    expect(result).toMatchObject({ ok: false, error: { code: 'timeout', retryable: true } });
    expect(result.error?.message).toMatch(/headers within 150 ms/);
    expect(result.durationMs).toBeGreaterThanOrEqual(150);
    expect(result.durationMs).toBeLessThan(150 + UNDICI_TIMER_RESOLUTION_MS);
  });

  it('gives up on a body that stalls after the headers, even after a 200', async () => {
    const server = await startServer((_request, response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('partial');
    });
    const result = await client({ bodyTimeoutMs: 150 }).get(server.url);
    expect(result).toMatchObject({
      ok: false,
      statusCode: 200,
      bodyExcerpt: 'partial',
      error: { code: 'timeout', retryable: true },
    });
    expect(result.durationMs).toBeLessThan(150 + UNDICI_TIMER_RESOLUTION_MS);
  });

  it('ends an attempt at attemptTimeoutMs, however the merchant drips its answer', async () => {
    // One byte a second: never silent for bodyTimeoutMs, so only an overall deadline ends it.
    const server = await startServer((_request, response) => {
      response.writeHead(200, { 'content-length': '1000' });
      const timer = setInterval(() => response.write('x'), 1_000);
      response.write('x');
      response.on('close', () => clearInterval(timer));
    });
    const result = await client({ bodyTimeoutMs: 1_500, attemptTimeoutMs: 3_000 }).get(server.url);
    expect(result).toMatchObject({ ok: false, statusCode: 200, error: { code: 'timeout', retryable: true } });
    expect(result.error?.message).toBe('no complete answer within 3000 ms');
    expect(result.bodyExcerpt).toMatch(/^x{2,4}$/);
    expect(result.durationMs).toBeGreaterThanOrEqual(3_000);
    expect(result.durationMs).toBeLessThan(3_500);
  });

  it('counts the wait for the headers against the same deadline', async () => {
    const server = await startServer(() => undefined);
    const result = await client({ headersTimeoutMs: 5_000, attemptTimeoutMs: 300 }).get(server.url);
    expect(result).toMatchObject({ ok: false, error: { code: 'timeout', retryable: true } });
    expect(result.error?.message).toBe('no complete answer within 300 ms');
    expect(result.durationMs).toBeLessThan(800);
  });

  it('reports a refused connection as connect_failed', async () => {
    const server = await startServer(() => undefined);
    const closedUrl = server.url;
    await server.close();
    const result = await client().get(closedUrl);
    expect(result).toMatchObject({ ok: false, error: { code: 'connect_failed', retryable: true } });
  });

  it('names every address that refused when a name has several', async () => {
    const server = await startServer(() => undefined);
    await server.close();
    const callbacks = client({ lookup: resolvingTo(['127.0.0.1', '::1']) });
    const result = await callbacks.get(`http://merchant.test:${server.port}/`);
    expect(result).toMatchObject({ ok: false, error: { code: 'connect_failed', retryable: true } });
    expect(result.error?.message).toMatch(/127\.0\.0\.1.*; .*::1/);
  });

  it.each([['ENOTFOUND'], ['EAI_AGAIN'], ['EAI_FAIL'], ['ESERVFAIL'], ['ETIMEOUT']])(
    'retries a DNS failure (%s) like any network error',
    async (code) => {
      const failing: LookupFunction = (hostname, _options, callback) =>
        callback(Object.assign(new Error(`getaddrinfo ${code} ${hostname}`), { code, hostname }), '', 4);
      const result = await client({ allowedCidrs: [], lookup: failing }).get('https://merchant.example/cb');
      expect(result).toMatchObject({ ok: false, error: { code: 'dns_failed', retryable: true } });
      expect(result.error?.message).toBe(`DNS lookup of merchant.example failed (${code})`);
    },
  );

  it('retries a name that resolves to no address at all', async () => {
    const result = await client({ allowedCidrs: [], lookup: resolvingTo([]) }).get('https://merchant.example/cb');
    expect(result).toMatchObject({ ok: false, error: { code: 'dns_failed', retryable: true } });
  });

  it('retries a name that does not resolve through the system resolver (.invalid)', async () => {
    const result = await client({ allowedCidrs: [], connectTimeoutMs: 3_000 }).get('http://no-such-merchant.invalid/cb');
    expect(result).toMatchObject({ ok: false, error: { code: 'dns_failed', retryable: true } });
    expect(result.error?.message).toMatch(/^DNS lookup of no-such-merchant\.invalid failed \((ENOTFOUND|EAI_AGAIN|EAI_FAIL)\)$/);
  });

  it('refuses what is not an absolute http(s) URL', async () => {
    const callbacks = client();
    for (const url of ['ftp://shop.example/cb', 'file:///etc/passwd', '/cb?x=1', 'not a url']) {
      expect(await callbacks.get(url)).toMatchObject({ ok: false, error: { code: 'invalid_url', retryable: false } });
    }
  });
});

describe('SSRF policy', () => {
  it('refuses loopback unless allowed, before opening a socket', async () => {
    const server = await startServer((_request, response) => response.end('ok'));
    const connections = forbidConnections();
    const result = await client({ allowedCidrs: [] }).get(`${server.url}/cb`);
    expect(result).toMatchObject({ ok: false, error: { code: 'ssrf_refused', retryable: false } });
    expect(result.error?.message).toMatch(/127\.0\.0\.1.*loopback/);
    expect(connections.attempts()).toBe(0);
    expect(server.connections).toBe(0);
  });

  it('connects to loopback when allowedCidrs lets it', async () => {
    const server = await startServer((_request, response) => response.end('ok'));
    expect(await client({ allowedCidrs: ['127.0.0.0/8'] }).get(server.url)).toMatchObject({ ok: true });
    expect(server.connections).toBe(1);
  });

  it.each([
    ['http://169.254.169.254/latest', /linkLocal/],
    ['http://10.0.0.1/cb', /private/],
    ['http://100.64.0.1/cb', /carrierGradeNat/],
    ['http://0.0.0.0/cb', /unspecified/],
    ['http://[::1]/cb', /loopback/],
    ['http://[::ffff:127.0.0.1]/cb', /loopback/],
    ['http://[fd00::1]/cb', /uniqueLocal/],
    ['http://[fe80::1]/cb', /linkLocal/],
    ['http://224.0.0.1/cb', /multicast/],
    ['http://192.0.2.1/cb', /reserved/],
    ['http://2130706433/cb', /127\.0\.0\.1.*loopback/],
  ])('refuses %s without any network traffic', async (url, reason) => {
    const connections = forbidConnections();
    const asked: string[] = [];
    const result = await client({ allowedCidrs: [], lookup: resolvingTo([], asked) }).get(url);
    expect(result).toMatchObject({ ok: false, error: { code: 'ssrf_refused', retryable: false } });
    expect(result.error?.message).toMatch(reason);
    expect(connections.attempts()).toBe(0);
    expect(asked).toEqual([]);
  });

  it.each([['10.0.0.1'], ['127.0.0.1'], ['::1']])(
    'refuses a name that resolves to %s, checking the address the socket would use',
    async (address) => {
      const connections = forbidConnections();
      const asked: string[] = [];
      const result = await client({ allowedCidrs: [], lookup: resolvingTo([address], asked) }).get('http://merchant.test/cb');
      expect(result).toMatchObject({ ok: false, error: { code: 'ssrf_refused', retryable: false } });
      expect(result.error?.message).toContain(`${address} (resolved from merchant.test)`);
      expect(asked).toEqual(['merchant.test']);
      expect(connections.attempts()).toBe(0);
    },
  );

  it('guards https the same way', async () => {
    const connections = forbidConnections();
    const callbacks = client({ allowedCidrs: [], lookup: resolvingTo(['10.0.0.1']) });
    const result = await callbacks.get('https://merchant.test/cb');
    expect(result).toMatchObject({ ok: false, error: { code: 'ssrf_refused' } });
    expect(connections.attempts()).toBe(0);
  });

  it('refuses a name when any of its addresses is refused, whatever the order', async () => {
    const connections = forbidConnections();
    const publicFirst = client({ allowedCidrs: [], lookup: resolvingTo(['93.184.215.14', '127.0.0.1']) });
    const publicThenLoopback = await publicFirst.get('http://merchant.test/cb');
    expect(publicThenLoopback).toMatchObject({ ok: false, error: { code: 'ssrf_refused' } });
    expect(publicThenLoopback.error?.message).toContain('127.0.0.1');
    const allowedFirst = client({ lookup: resolvingTo(['127.0.0.1', '10.0.0.1']) });
    const allowedThenPrivate = await allowedFirst.get('http://merchant.test/cb');
    expect(allowedThenPrivate).toMatchObject({ ok: false, error: { code: 'ssrf_refused' } });
    expect(allowedThenPrivate.error?.message).toContain('10.0.0.1');
    expect(connections.attempts()).toBe(0);
  });

  it('connects by name when every resolved address is allowed', async () => {
    const server = await startServer((_request, response) => response.end('ok'));
    const asked: string[] = [];
    const result = await client({ lookup: resolvingTo(['127.0.0.1'], asked) }).get(`http://merchant.test:${server.port}/cb`);
    expect(result).toMatchObject({ ok: true, bodyExcerpt: 'ok' });
    expect(asked).toEqual(['merchant.test']);
    expect(server.requests[0]?.host).toBe(`merchant.test:${server.port}`);
  });

  it('refuses a malformed allowedCidrs entry when the client is created', () => {
    expect(() => client({ allowedCidrs: ['127.0.0.1'] })).toThrow(/allowedCidrs/);
  });
});

// Boundaries and the words an operator reads in a delivery's record, case by case (found by
// mutation testing: `pnpm mutate`).
describe('what each outcome says', () => {
  const answering =
    (statusCode: number, body = ''): RequestListener =>
    (_request, response) => {
      response.statusCode = statusCode;
      response.end(body);
    };

  it.each([
    [200, true, ''],
    [204, true, ''],
    [299, true, ''],
    [300, false, ', redirects are not followed'],
    [399, false, ', redirects are not followed'],
    [400, false, ''],
    [503, false, ''],
  ])('a %i is ok: %s', async (statusCode, ok, note) => {
    const server = await startServer(answering(statusCode));
    const result = await client().get(server.url);
    expect(result).toMatchObject({ ok, statusCode });
    if (ok) expect(result.error).toBeUndefined();
    else
      expect(result.error).toEqual({
        code: 'http_error',
        message: `127.0.0.1:${server.port} answered ${statusCode}${note}`,
        retryable: true,
      });
  });

  it('reads a body of exactly maxResponseBytes, and stops one byte past it', async () => {
    const exact = await startServer(answering(200, 'a'.repeat(2048)));
    expect(await client({ maxResponseBytes: 2048 }).get(exact.url)).toEqual({
      ok: true,
      statusCode: 200,
      durationMs: expect.any(Number),
      bodyExcerpt: 'a'.repeat(1024),
    });
    const over = await startServer(answering(200, 'a'.repeat(2049)));
    expect((await client({ maxResponseBytes: 2048 }).get(over.url)).error).toEqual({
      code: 'response_too_large',
      message: 'body longer than 2048 bytes, reading stopped',
      retryable: false,
    });
    const failed = await startServer(answering(500, 'a'.repeat(2049)));
    expect((await client({ maxResponseBytes: 2048 }).get(failed.url)).error?.message).toBe(
      `127.0.0.1:${failed.port} answered 500 (body too large, reading stopped)`,
    );
  });

  it('keeps the first KiB of a body that arrives in several chunks', async () => {
    const server = await startServer((_request, response) => {
      response.write('a'.repeat(1000));
      setTimeout(() => {
        response.write('b'.repeat(100));
        setTimeout(() => response.end('c'.repeat(100)), 20);
      }, 20);
    });
    expect((await client().get(server.url)).bodyExcerpt).toBe(`${'a'.repeat(1000)}${'b'.repeat(24)}`);
  });

  it('says why a URL is refused, with no body', async () => {
    const callbacks = client();
    expect(await callbacks.get('/cb?x=1')).toEqual({
      ok: false,
      durationMs: expect.any(Number),
      bodyExcerpt: '',
      error: { code: 'invalid_url', message: 'not an absolute URL', retryable: false },
    });
    expect((await callbacks.get('ftp://shop.example/cb')).error?.message).toBe('only http and https callbacks are allowed, not ftp:');
  });

  it('names a refused IP literal without a "resolved from"', async () => {
    const result = await client({ allowedCidrs: [] }).get('http://127.0.0.1:9/cb');
    expect(result.error?.message).toBe('refused to connect to 127.0.0.1: loopback address, only public unicast addresses are allowed');
  });

  it('refuses loopback when no allowedCidrs are given at all', async () => {
    const { allowedCidrs: _none, ...options } = {
      connectTimeoutMs: 200,
      headersTimeoutMs: 200,
      bodyTimeoutMs: 200,
      attemptTimeoutMs: 5_000,
      maxResponseBytes: 1024,
      allowedCidrs: undefined,
      userAgent: 'gateway-callbacks/test',
    };
    const created = createCallbackHttpClient(options);
    clients.push(created);
    expect((await created.get('http://127.0.0.1:9/cb')).error?.code).toBe('ssrf_refused');
  });

  it('says which DNS failure it was, ENODATA for a name without an address', async () => {
    const noCode: LookupFunction = (_hostname, _options, callback) => callback(new Error('resolver broke'), '', 4);
    expect((await client({ allowedCidrs: [], lookup: noCode }).get('http://merchant.example/cb')).error?.message).toBe(
      'DNS lookup of merchant.example failed (lookup failed)',
    );
    const emptyCode: LookupFunction = (_hostname, _options, callback) => callback(Object.assign(new Error('x'), { code: '' }), '', 4);
    expect((await client({ allowedCidrs: [], lookup: emptyCode }).get('http://merchant.example/cb')).error?.message).toBe(
      'DNS lookup of merchant.example failed (lookup failed)',
    );
    const blankAddress: LookupFunction = (_hostname, options, callback) =>
      options.all ? callback(null, [{ address: '', family: 4 }]) : callback(null, '', 4);
    expect(await client({ allowedCidrs: [], lookup: blankAddress }).get('http://merchant.example/cb')).toMatchObject({
      ok: false,
      error: { code: 'dns_failed', message: 'DNS lookup of merchant.example failed (ENODATA)', retryable: true },
    });
    expect((await client({ allowedCidrs: [], lookup: resolvingTo([]) }).get('http://merchant.example/cb')).error?.message).toBe(
      'DNS lookup of merchant.example failed (ENODATA)',
    );
  });

  it('names its errors for logs', () => {
    const refused = new SsrfRefusedError('shop.example', '10.0.0.1', 'private address');
    expect([refused.name, refused.code, refused.message]).toEqual([
      'SsrfRefusedError',
      'ERR_CALLBACK_SSRF_REFUSED',
      'refused to connect to 10.0.0.1 (resolved from shop.example): private address',
    ]);
    const dns = new DnsLookupError('shop.example', 'ENOTFOUND');
    expect([dns.name, dns.code, dns.message]).toEqual([
      'DnsLookupError',
      'ERR_CALLBACK_DNS_FAILED',
      'DNS lookup of shop.example failed (ENOTFOUND)',
    ]);
  });

  it("reports a refused connection in the socket's words, its code not repeated", async () => {
    const server = await startServer(() => undefined);
    await server.close();
    const result = await client().get(server.url);
    expect(result.error?.message).toBe(`connect ECONNREFUSED 127.0.0.1:${server.port}`);
  });

  // What the kernel answers connect() on a real network (no route, an address gone, a handshake cut
  // off) cannot happen on loopback: the TCP handle is made to answer it, as forbidConnections does.
  it.each(['EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ETIMEDOUT', 'EPROTO'] as const)(
    'reports a connect() refused with %s as connect_failed, retried',
    async (code) => {
      const server = await startServer(answering(200));
      jest.spyOn(tcpHandle(), 'connect').mockImplementation(() => -constants.errno[code]);
      const result = await client().get(server.url);
      expect(result).toMatchObject({ ok: false, error: { code: 'connect_failed', retryable: true } });
      expect(result.error?.message).toMatch(new RegExp(`^connect ${code} 127\\.0\\.0\\.1:${server.port}\\b`));
      expect(server.requests).toHaveLength(0);
    },
  );

  it('reports a connection the merchant drops after the request as request_failed, with the code', async () => {
    const server = await startServer((request) => request.socket.destroy());
    expect((await client().get(server.url)).error).toEqual({
      code: 'request_failed',
      message: 'other side closed (UND_ERR_SOCKET)',
      retryable: true,
    });
  });

  it('reports a TLS handshake with a server that speaks plain HTTP as connect_failed', async () => {
    const server = await startServer(answering(200));
    const result = await client().get(`https://127.0.0.1:${server.port}/cb`);
    expect(result).toMatchObject({ ok: false, error: { code: 'connect_failed', retryable: true } });
    // OpenSSL's words, then its code (ERR_SSL_WRONG_VERSION_NUMBER here).
    expect(result.error?.message).toMatch(/\(ERR_SSL_[A-Z_]+\)$/);
  });

  it('says which timeout ended a stalled body', async () => {
    const server = await startServer((_request, response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('partial');
    });
    expect((await client({ bodyTimeoutMs: 150 }).get(server.url)).error?.message).toBe('response body silent for 150 ms');
  });
});
