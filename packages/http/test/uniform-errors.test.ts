import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { createServer } from '../src';
import { rawRequest, requestText, type RawResponse } from './support/raw-http';

let app: FastifyInstance;
let port: number;
let sideEffects = 0;

beforeAll(async () => {
  app = await createServer({ serviceName: 'errors-test', description: 'test', logger: false, readiness: {} });
  app.get('/things', { schema: { querystring: Type.Object({ a: Type.Optional(Type.String()) }) } }, async (request) => ({
    query: request.query,
  }));
  app.get('/things/:id', async (request) => ({ params: request.params }));
  app.post('/things', async (request) => ({ body: request.body }));
  // A GET with a side effect (as Create Wallet and Process Payment are): HEAD must not run it.
  app.get('/create.php', { exposeHeadRoute: false }, async () => {
    sideEffects += 1;
    return { created: true };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
});

afterAll(() => app.close());

/** Our one error shape, our framing headers and a request id: whatever layer answered. */
function expectOurError(response: RawResponse, status: number, code: string): Record<string, unknown> {
  expect({ status: response.status, body: response.body }).toMatchObject({ status });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(body).toMatchObject({ status: 'error', code, error: expect.any(String) });
  expect(Object.keys(body).every((key) => ['status', 'code', 'error', 'param'].includes(key))).toBe(true);
  expect(response.body).not.toMatch(/FST_|statusCode/);
  expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(response.headers['x-frame-options']).toBe('DENY');
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['x-request-id']).toMatch(/^[A-Za-z0-9._-]{8,128}$/);
  return body;
}

const get = (target: string, headers: string[] = []) => rawRequest(port, requestText(`GET ${target} HTTP/1.1`, headers));

describe('every error, from every layer, in one shape with our headers', () => {
  it('a path that is not valid percent-encoding (the router)', async () => {
    for (const target of ['/%', '/%ff', '/things/%zz', '/%E0%A4%A']) {
      const body = expectOurError(await get(target), 400, 'malformed_request');
      expect(body.error).toMatch(/percent-encod/);
    }
  });

  it('a query parameter that is not valid percent-encoding names the parameter', async () => {
    for (const target of ['/things?a=%zz', '/things?a=%ff', '/things?a=%']) {
      const body = expectOurError(await get(target), 400, 'invalid_parameter');
      expect(body.param).toBe('a');
    }
    // Valid encodings still arrive decoded.
    const fine = await get('/things?a=%C3%A9t%C3%A9+x');
    expect(fine.status).toBe(200);
    expect(JSON.parse(fine.body)).toEqual({ query: { a: 'été x' } });
  });

  it('a path parameter longer than the router takes (414)', async () => {
    expectOurError(await get(`/things/${'a'.repeat(300)}`), 414, 'uri_too_long');
  });

  it('a request line or headers beyond the HTTP parser limit (431, answered by the client error handler)', async () => {
    expectOurError(await get(`/things?a=${'a'.repeat(20_000)}`), 431, 'headers_too_large');
  });

  it('a malformed header, an unknown method or a broken request line (the HTTP parser)', async () => {
    expectOurError(await get('/things', ['Bad Header: y']), 400, 'malformed_request');
    expectOurError(await get('/things', ['X-Thing: a\x01b']), 400, 'malformed_request');
    expectOurError(await rawRequest(port, requestText('FOO /things HTTP/1.1')), 400, 'malformed_request');
    expectOurError(await rawRequest(port, requestText('GET /things HTTP/9')), 400, 'malformed_request');
  });

  it('a body of an unsupported type, malformed JSON, or over the body limit (the content-type parser)', async () => {
    const post = (type: string, body: string) =>
      rawRequest(port, requestText('POST /things HTTP/1.1', [`Content-Type: ${type}`, `Content-Length: ${Buffer.byteLength(body)}`], body));
    expectOurError(await post('text/xml', '<a/>'), 415, 'unsupported_media_type');
    expectOurError(await post('application/json', '{"a":'), 400, 'invalid_parameter');
    expectOurError(await post('application/json', JSON.stringify({ a: 'x'.repeat(20_000) })), 413, 'payload_too_large');
  });

  it('an unknown path stays 404', async () => {
    expectOurError(await get('/nope.php'), 404, 'not_found');
    expectOurError(await rawRequest(port, requestText('POST /nope.php HTTP/1.1', ['Content-Length: 0'])), 404, 'not_found');
  });
});

describe('methods', () => {
  it('answers a wrong method on a known path with 405 and Allow', async () => {
    const response = await rawRequest(port, requestText('PUT /things HTTP/1.1', ['Content-Length: 0']));
    expectOurError(response, 405, 'method_not_allowed');
    expect(response.headers.allow).toBe('GET, HEAD, POST');
    const withParam = await rawRequest(port, requestText('DELETE /things/42 HTTP/1.1'));
    expectOurError(withParam, 405, 'method_not_allowed');
    expect(withParam.headers.allow).toBe('GET, HEAD');
  });

  it('never runs a side-effect handler for HEAD: 405 with Allow: GET', async () => {
    const before = sideEffects;
    const response = await rawRequest(port, requestText('HEAD /create.php HTTP/1.1'));
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET');
    expect(response.headers['x-request-id']).toBeDefined();
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.body).toBe('');
    expect(sideEffects).toBe(before);
    expect((await app.inject({ method: 'HEAD', url: '/create.php' })).statusCode).toBe(405);
    expect(sideEffects).toBe(before);
  });

  it('keeps HEAD on read-only routes (headers of the GET, no body)', async () => {
    const response = await app.inject({ method: 'HEAD', url: '/things?a=1' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
    expect(response.headers['x-frame-options']).toBe('DENY');
  });
});
