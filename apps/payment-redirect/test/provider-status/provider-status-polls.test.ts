import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import IORedis from 'ioredis';
import { ProviderStatusRepository } from '@gateway/db/payment-redirect';
import {
  SANDBOX_WEBHOOK_SIGNATURE_HEADER,
  verifySandboxWebhook,
  type ProviderAdapter,
  type ProviderRegistry,
  type ProviderStatusQuery,
} from '@gateway/providers';
import { openProviderStatusQueue, providerStatusJobId, type ProviderStatusQueue } from '@gateway/queue';
import { startRedisServer, type RunningRedis, waitFor, sleep } from '@gateway/testkit';
import type { PaymentRedirectConfig } from '../../src/config';
import { ProviderStatusService, type ProviderStatusMetrics } from '../../src/services/provider-status/provider-status-service';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';
import { askProvider as askProviderJob, type AskProvider } from '../../src/jobs/ask-provider';
import { moonpayPayment, sandboxWebhook } from '../support/sandbox';

// The poller against a local fake of the sandbox provider's order look-up (GET /orders/<payment id>,
// signed as the sandbox adapter signs it), on a Redis of this file's own: FLUSHALL would wipe every
// other test's queues on the shared one. Delays are short: 200 ms doubling to 400 ms.

type Answer = { statusCode: 404 } | { statusCode: 200; status: 'pending' | 'paid' } | { statusCode: 500 };

/** The sandbox's order look-up: answers each payment as told, checks every request's signature, counts them. */
class FakeOrderApi {
  readonly asked = new Map<string, number>();
  readonly answers = new Map<string, Answer[]>();
  /** Runs before a look-up is answered (a webhook arriving while the provider is being asked). */
  readonly before = new Map<string, () => Promise<void>>();
  unsigned = 0;
  /** The key shared with the gateway (SANDBOX_SIGNING_SECRET). */
  secret: Buffer = Buffer.alloc(0);
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      void this.answer(request.method ?? '', request.url ?? '', request.headers[SANDBOX_WEBHOOK_SIGNATURE_HEADER], response);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async answer(method: string, url: string, signature: unknown, response: import('node:http').ServerResponse): Promise<void> {
    const match = /^\/orders\/([0-9a-f-]{36})$/.exec(url);
    if (method !== 'GET' || !match) {
      response.writeHead(404).end();
      return;
    }
    if (!verifySandboxWebhook(Buffer.from(`GET ${url}`), typeof signature === 'string' ? signature : undefined, this.secret)) {
      this.unsigned += 1;
      response.writeHead(401).end();
      return;
    }
    const paymentId = match[1]!;
    this.asked.set(paymentId, (this.asked.get(paymentId) ?? 0) + 1);
    await this.before.get(paymentId)?.();
    // The last answer given repeats.
    const queue = this.answers.get(paymentId) ?? [{ statusCode: 404 }];
    const next = queue.length > 1 ? queue.shift()! : queue[0]!;
    if (next.statusCode !== 200) {
      response.writeHead(next.statusCode, { 'content-type': 'application/json' }).end('{"status":"error"}');
      return;
    }
    const body = { payment_id: paymentId, order_id: `sbx_${paymentId.slice(0, 8)}`, status: next.status };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }
}

const fixture = paymentRedirectFixture('status_polls', {
  STATUS_POLL_FIRST_DELAY_MS: '200',
  STATUS_POLL_MAX_DELAY_MS: '400',
  STATUS_POLL_RECONCILE_INTERVAL_MS: '300',
});
let redisServer: RunningRedis;
let redis: IORedis;
let fake: FakeOrderApi;
let app: FastifyInstance;
let config: PaymentRedirectConfig;

beforeAll(async () => {
  redisServer = await startRedisServer();
  redis = new IORedis(redisServer.url, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  fake = new FakeOrderApi();
  const fakeUrl = await fake.start();
  config = fixture.config({ REDIS_URL: redisServer.url, SANDBOX_PROVIDER_URL: fakeUrl });
  fake.secret = config.sandbox!.signingSecret;
  app = await fixture.build(config, { redis: { redis, url: redisServer.url, prefix: fixture.cache.prefix, close: async () => undefined } });
  // Started when the app listens; this one is only injected into.
  app.providerStatusConsumer!.start();
});

afterAll(async () => {
  await app.close();
  redis.disconnect();
  await Promise.all([fake.close(), redisServer.stop()]);
});

let walletIndex = 0;
async function startPayment(): Promise<string> {
  walletIndex += 1;
  return (await moonpayPayment(fixture, app, config, walletIndex)).paymentId;
}

async function pollState(paymentId: string) {
  const { rows } = await fixture.db.pool.query<{ provider_status: string | null; status_polls: number; due: boolean }>(
    'SELECT provider_status, status_polls, status_poll_due_at IS NOT NULL AS due FROM payments WHERE id = $1',
    [paymentId],
  );
  return rows[0]!;
}

const asked = (paymentId: string) => fake.asked.get(paymentId) ?? 0;

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const found = (await app.metrics.getSingleMetric(name)?.get())?.values ?? [];
  return found
    .filter((value) => Object.entries(labels).every(([key, wanted]) => value.labels[key] === wanted))
    .reduce((sum, value) => sum + value.value, 0);
}

describe('provider status look-ups', () => {
  it('asks on a doubling schedule until the provider says paid, then stops', async () => {
    const paymentId = await startPayment();
    fake.answers.set(paymentId, [
      { statusCode: 404 },
      { statusCode: 500 },
      { statusCode: 200, status: 'pending' },
      { statusCode: 200, status: 'paid' },
    ]);
    expect(await pollState(paymentId)).toMatchObject({ provider_status: null, status_polls: 0, due: true });
    const started = Date.now();
    await waitFor('the poll to reach paid', async () => (await pollState(paymentId)).provider_status === 'paid', 10_000);
    // 200 + 400 + 400 + 400 ms at the least (first wait, then doubled and capped).
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_300);
    await waitFor('polling to stop', async () => !(await pollState(paymentId)).due, 5_000);
    expect(await pollState(paymentId)).toMatchObject({ provider_status: 'paid', status_polls: 4, due: false });
    expect(asked(paymentId)).toBe(4);
    await sleep(1_200);
    expect(asked(paymentId)).toBe(4);
    expect(await app.providerStatusQueue.getJobState(providerStatusJobId(paymentId))).toBe('unknown');
    expect(fake.unsigned).toBe(0);
    for (const outcome of ['not_found', 'failed', 'updated']) {
      expect(await metric('payment_redirect_provider_status_polls_total', { provider: 'moonpay', outcome })).toBeGreaterThan(0);
    }
    expect(
      await metric('payment_redirect_provider_statuses_total', { provider: 'moonpay', status: 'paid', source: 'poll' }),
    ).toBeGreaterThan(0);
  });

  it('goes on asking after a FLUSHALL: the reconciler recreates the job from the payment', async () => {
    const paymentId = await startPayment();
    fake.answers.set(paymentId, [{ statusCode: 200, status: 'pending' }]);
    await waitFor('a first look-up', () => asked(paymentId) >= 1, 5_000);
    const before = await metric('payment_redirect_provider_status_reconciler_enqueued_total', {});
    await redisServer.flushAll();
    expect(await app.providerStatusQueue.getJobState(providerStatusJobId(paymentId))).toBe('unknown');
    const askedAtFlush = asked(paymentId);
    fake.answers.set(paymentId, [{ statusCode: 200, status: 'paid' }]);
    await waitFor('the look-ups to resume', async () => (await pollState(paymentId)).provider_status === 'paid', 10_000);
    expect(asked(paymentId)).toBeGreaterThan(askedAtFlush);
    expect(await metric('payment_redirect_provider_status_reconciler_enqueued_total', {})).toBeGreaterThan(before);
  });

  it('never undoes a paid webhook with a later look-up', async () => {
    const paymentId = await startPayment();
    // While the provider is being asked, its signed webhook says paid; the look-up then answers pending.
    fake.before.set(paymentId, async () => {
      // The same order the look-up then answers about (another order's answer would not be this payment's at all).
      const response = await sandboxWebhook(app, config, {
        payment_id: paymentId,
        status: 'paid',
        order_id: `sbx_${paymentId.slice(0, 8)}`,
      });
      expect(response.headers['x-webhook-outcome']).toBe('updated');
    });
    fake.answers.set(paymentId, [{ statusCode: 200, status: 'pending' }]);
    const unchangedBefore = await metric('payment_redirect_provider_status_polls_total', { provider: 'moonpay', outcome: 'unchanged' });
    await waitFor('a look-up', () => asked(paymentId) === 1, 5_000);
    await waitFor(
      'the look-up to be recorded',
      async () =>
        (await metric('payment_redirect_provider_status_polls_total', { provider: 'moonpay', outcome: 'unchanged' })) > unchangedBefore,
      5_000,
    );
    await waitFor('polling to stop', async () => !(await pollState(paymentId)).due, 5_000);
    expect(await pollState(paymentId)).toMatchObject({ provider_status: 'paid', due: false });
    expect(asked(paymentId)).toBe(1);
    expect(
      await metric('payment_redirect_provider_statuses_total', { provider: 'moonpay', status: 'paid', source: 'webhook' }),
    ).toBeGreaterThan(0);
  });
});

describe('an unsigned webhook', () => {
  // A provider whose webhooks carry no signature (as Wert's): its adapter reads the body, nothing proves who sent it.
  const looked: ProviderStatusQuery[] = [];
  const unsignedAdapter: ProviderAdapter = {
    descriptor: {
      id: 'moonpay',
      displayName: 'Unsigned Test',
      currency: 'any',
      minimum: '1',
      minimumCurrency: 'USD',
      fees: { minBps: 300, maxBps: 500, source: 'this test' },
      flow: 'url',
      webhook: 'none (unsigned)',
      webhookUnsigned: true,
      delivers: 'native',
      settings: {} as never,
      hosts: { live: 'https://unsigned.example', test: 'https://unsigned.example' },
      docs: 'this test',
    },
    mode: 'test',
    createCheckout: async () => ({ kind: 'redirect', url: 'https://unsigned.example/pay' }),
    async verifyWebhook(rawBody) {
      const body = JSON.parse(rawBody.toString('utf8')) as { order: string; state: 'paid' };
      return {
        kind: 'event',
        event: { match: { paymentId: body.order }, status: body.state, rawStatus: body.state },
        acknowledgement: { statusCode: 200, contentType: 'application/json', body: '{"ok":true}' },
      };
    },
    async status(query) {
      looked.push(query);
      return { match: { paymentId: query.paymentId }, status: 'pending', rawStatus: 'in_progress' };
    },
  };
  const registry = {
    adapter: (id: string) => (id === 'moonpay' ? unsignedAdapter : undefined),
    webhookReceiver: (endpoint: string) => (endpoint === 'moonpay' ? { adapter: unsignedAdapter, providers: ['moonpay'] } : undefined),
  } as unknown as ProviderRegistry;
  const counted: string[] = [];
  const metrics: ProviderStatusMetrics = {
    webhook: (provider, outcome) => counted.push(`${provider}:${outcome}`),
    poll: () => undefined,
    statusReached: () => undefined,
    declineRecorded: () => undefined,
  };
  let queue: ProviderStatusQueue;
  let service: ProviderStatusService;
  let askProvider: AskProvider;

  beforeAll(() => {
    queue = openProviderStatusQueue({ url: redisServer.url, prefix: `${fixture.cache.prefix}-unsigned` });
    const pool = fixture.db.appPool('payment-redirect');
    const deps = {
      providers: registry,
      statuses: new ProviderStatusRepository(pool),
      schedule: { firstDelayMs: 60_000, maxDelayMs: 600_000, maxAgeMs: 3_600_000 },
      metrics,
      log: app.log,
    };
    service = new ProviderStatusService({ ...deps, queue });
    askProvider = askProviderJob({ ...deps, lookupTimeoutMs: 1_000 });
  });
  afterAll(() => queue.close());

  it('is answered 2xx at once, records nothing, and makes the provider be asked now', async () => {
    const paymentId = await startPayment();
    // Its first look-up is a minute away.
    await service.track(paymentId, 'moonpay');
    expect(await queue.getJobState(providerStatusJobId(paymentId))).toBe('delayed');
    const receipt = await service.receiveWebhook('moonpay', Buffer.from(JSON.stringify({ order: paymentId, state: 'paid' })), {});
    expect(receipt).toEqual({ kind: 'accepted', outcome: 'hint', acknowledgement: expect.objectContaining({ statusCode: 200 }) });
    expect((await pollState(paymentId)).provider_status).toBeNull();
    expect(await queue.getJobState(providerStatusJobId(paymentId))).toBe('waiting');
    // The job's look-up asks the provider, whose answer (not the webhook's body) is recorded.
    expect(await askProvider(paymentId)).toBeInstanceOf(Date);
    expect(looked).toEqual([{ paymentId, walletAddress: expect.stringMatching(/^0x[0-9a-f]{40}$/) }]);
    expect((await pollState(paymentId)).provider_status).toBe('pending');
    expect(counted).toContain('moonpay:hint');
  });

  it('is answered 2xx when unreadable or about no payment of ours, never an error its provider would disable the endpoint for', async () => {
    expect(await service.receiveWebhook('moonpay', Buffer.from('not json'), {})).toMatchObject({ kind: 'accepted', outcome: 'ignored' });
    const unknown = await service.receiveWebhook('moonpay', Buffer.from(JSON.stringify({ order: 'f'.repeat(8), state: 'paid' })), {});
    expect(unknown).toMatchObject({ kind: 'accepted', outcome: 'unknown_payment', acknowledgement: { statusCode: 200 } });
  });
});
