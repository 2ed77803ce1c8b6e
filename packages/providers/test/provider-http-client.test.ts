import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createProviderHttpClient,
  ProviderUnreachableError,
  RetryBudget,
  type ProviderHttpClient,
} from '../src/support/provider-http-client';
import { observedHttpClient } from '../src/support/provider-call-observer';

/** A local fake provider answering with what each test queues, recording what it received. */
function fakeProvider() {
  const received: { method: string; url: string; body: string; headers: http.IncomingHttpHeaders }[] = [];
  const answers: ((res: http.ServerResponse) => void)[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', body, headers: req.headers });
      const answer = answers.shift() ?? ((r: http.ServerResponse) => r.end('{}'));
      answer(res);
    });
  });
  return {
    received,
    answers,
    start: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
      ),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const status =
  (code: number, body = '') =>
  (res: http.ServerResponse) => {
    res.statusCode = code;
    res.end(body);
  };
const signal = () => new AbortController().signal;

describe('provider HTTP client', () => {
  const fake = fakeProvider();
  let base: string;
  let client: ProviderHttpClient;
  beforeAll(async () => {
    base = await fake.start();
  });
  beforeEach(() => {
    fake.received.length = 0;
    fake.answers.length = 0;
    client = createProviderHttpClient({ attemptTimeoutMs: 300, backoffBaseMs: 1 });
  });
  afterEach(() => client.close());
  afterAll(() => fake.stop());

  it('sends the request as given and returns status, headers and body', async () => {
    fake.answers.push(status(201, '{"id":"s1"}'));
    const response = await client.request({
      method: 'POST',
      url: `${base}/session`,
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: '{"a":1}',
      signal: signal(),
      retryable: false,
    });
    expect(response).toMatchObject({ statusCode: 201, body: '{"id":"s1"}' });
    expect(fake.received).toEqual([
      expect.objectContaining({ method: 'POST', url: '/session', body: '{"a":1}', headers: expect.objectContaining({ 'x-api-key': 'k' }) }),
    ]);
  });

  it('retries a retryable call on 503 and on a timeout, then answers', async () => {
    fake.answers.push(status(503), () => undefined /* never answers: the attempt times out */, status(200, 'ok'));
    const response = await client.request({ method: 'GET', url: `${base}/quote`, signal: signal(), retryable: true });
    expect(response).toMatchObject({ statusCode: 200, body: 'ok' });
    expect(fake.received).toHaveLength(3);
  });

  it('never retries a call that is not safe to send twice', async () => {
    fake.answers.push(status(503));
    const response = await client.request({ method: 'POST', url: `${base}/session`, body: '{}', signal: signal(), retryable: false });
    expect(response.statusCode).toBe(503);
    expect(fake.received).toHaveLength(1);
  });

  it('gives up after its attempts with ProviderUnreachableError', async () => {
    await fake.stop();
    const error = await client.request({ method: 'GET', url: `${base}/quote`, signal: signal(), retryable: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnreachableError);
    expect((error as ProviderUnreachableError).kind).toBe('unavailable');
    expect((error as ProviderUnreachableError).failure).toBe('network');
    base = await fake.start();
  });

  it("stops at the caller's deadline", async () => {
    fake.answers.push(() => undefined);
    const started = Date.now();
    const error = await client
      .request({ method: 'GET', url: `${base}/slow`, signal: AbortSignal.timeout(100), retryable: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnreachableError);
    expect((error as ProviderUnreachableError).failure).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('says an attempt that ran out of its own time timed out', async () => {
    fake.answers.push(() => undefined);
    const error = await client
      .request({ method: 'POST', url: `${base}/slow`, signal: signal(), retryable: false })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ProviderUnreachableError', failure: 'timeout' });
  });

  it('refuses a body larger than its limit', async () => {
    const small = createProviderHttpClient({ maxResponseBytes: 10 });
    fake.answers.push(status(200, 'x'.repeat(100)));
    await expect(small.request({ method: 'GET', url: `${base}/big`, signal: signal(), retryable: false })).rejects.toMatchObject({
      message: expect.stringMatching(/more than 10 bytes/),
      failure: 'too_large',
    });
    await small.close();
  });
});

describe('the observed client of one provider', () => {
  const fake = fakeProvider();
  let base: string;
  const shared = createProviderHttpClient({ attemptTimeoutMs: 300, backoffBaseMs: 1 });
  const told: [string, string, string][] = [];
  const observed = observedHttpClient(shared, 'acme', {
    call: (provider, call, outcome, seconds) => {
      expect(seconds).toBeGreaterThanOrEqual(0);
      told.push([provider, call, outcome]);
    },
    tokenMinted: () => undefined,
  });
  beforeAll(async () => {
    base = await fake.start();
  });
  afterAll(async () => {
    await shared.close();
    await fake.stop();
  });

  it('tells each call by its name (a GET is a status look-up, anything else a session call) and how it ended', async () => {
    fake.answers.push(status(200, '{}'), status(201, '{}'), status(429), status(502), status(404), () => undefined);
    const post = () => ({ method: 'POST' as const, url: `${base}/x`, body: '{}', signal: signal(), retryable: false });
    await observed.request({ ...post(), call: 'token' });
    await observed.request(post());
    await observed.request({ method: 'GET', url: `${base}/q`, call: 'quote', signal: signal(), retryable: false });
    await observed.request({ method: 'GET', url: `${base}/s`, signal: signal(), retryable: false });
    await observed.request(post());
    await expect(observed.request(post())).rejects.toMatchObject({ failure: 'timeout' });
    await fake.stop();
    await expect(observed.request(post())).rejects.toMatchObject({ failure: 'network' });
    base = await fake.start();
    expect(told).toEqual([
      ['acme', 'token', 'ok'],
      ['acme', 'session', 'ok'],
      ['acme', 'quote', 'rate_limited'],
      ['acme', 'status', 'http_5xx'],
      ['acme', 'session', 'http_4xx'],
      ['acme', 'session', 'timeout'],
      ['acme', 'session', 'network'],
    ]);
  });
});

describe('RetryBudget', () => {
  it('allows the reserve, then retries only as first attempts earn them, and refills the reserve each second', () => {
    let now = 0;
    const budget = new RetryBudget(0.1, 2, () => now);
    expect(budget.tryWithdraw()).toBe(true);
    expect(budget.tryWithdraw()).toBe(true);
    expect(budget.tryWithdraw()).toBe(false);
    for (let i = 0; i < 10; i++) budget.deposit();
    expect(budget.tryWithdraw()).toBe(true);
    expect(budget.tryWithdraw()).toBe(false);
    now = 1000;
    expect(budget.tryWithdraw()).toBe(true);
  });
});
