import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createTestRedis } from '@gateway/testkit';
import { seedDelivery, seedWallet, sqlExpression, type DeliverySeed, type SeededWallet } from '@gateway/app-testkit';
import { walletControlFixture } from '../support/wallet-control-fixture';

// A merchant's callbacks through its ipn_token: their log in Check Payment Status, and the resend of the latest.
const fixture = walletControlFixture('merchant_callbacks', { STATUS_RATE_LIMIT_MAX: '100000' });
let app: FastifyInstance;

beforeAll(async () => {
  app = await fixture.build();
});

const newWallet = () => seedWallet(fixture.db.pool);
const addDelivery = (wallet: SeededWallet, seed: Omit<DeliverySeed, 'walletId'> = {}) =>
  seedDelivery(fixture.db.pool, { ...seed, walletId: wallet.id });

interface AttemptSeed {
  startedAt: string;
  durationMs?: number;
  statusCode?: number | null;
  errorCode?: string | null;
  error?: string | null;
  excerpt?: string | null;
}

/** An attempt as the callback-worker records it. */
async function addAttempt(deliveryId: string, attemptNo: number, attempt: AttemptSeed): Promise<void> {
  await fixture.db.pool.query(
    `INSERT INTO callback_attempts (delivery_id, attempt_no, started_at, duration_ms, status_code, error_code, error, response_excerpt)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      deliveryId,
      attemptNo,
      attempt.startedAt,
      attempt.durationMs ?? 40,
      attempt.statusCode ?? null,
      attempt.errorCode ?? null,
      attempt.error ?? null,
      attempt.excerpt === undefined ? '' : attempt.excerpt,
    ],
  );
}

interface DeliveryRow {
  status: string;
  attempt_count: number;
  round_start_attempts: number;
  resend_count: number;
  resent_at: Date | null;
  next_attempt_at: Date;
}

async function deliveryRow(id: string): Promise<DeliveryRow> {
  const { rows } = await fixture.db.pool.query<DeliveryRow>(
    `SELECT status, attempt_count, round_start_attempts, resend_count, resent_at, next_attempt_at FROM callback_deliveries WHERE id = $1`,
    [id],
  );
  return rows[0]!;
}

const status = (ipnToken: string) => app.inject({ url: '/control/payment-status.php', query: { ipn_token: ipnToken } });
const resend = (ipnToken: string | undefined, on = app, remoteAddress = '127.0.0.1') =>
  on.inject({
    method: 'POST',
    url: '/control/resend-callback.php',
    query: ipnToken === undefined ? {} : { ipn_token: ipnToken },
    remoteAddress,
  });

describe('the callback log in payment-status.php (callback_log)', () => {
  it('lists each callback, newest first, with its attempts: HTTP status, the answer cut to 200 characters, the error code, the next retry', async () => {
    const wallet = await newWallet();
    const first = await addDelivery(wallet, {
      txidIn: `0x${'a'.repeat(64)}`,
      status: 'delivered',
      attemptCount: 2,
      createdAt: '2025-05-01T10:00:00Z',
      deliveredAt: '2025-05-01T10:01:00Z',
      nextAttemptAt: '2025-05-01T10:00:30Z',
    });
    const errorPage = `<html>${'Internal Server Error '.repeat(60)}</html>`.slice(0, 1024);
    await addAttempt(first, 1, {
      startedAt: '2025-05-01T10:00:00Z',
      durationMs: 120,
      statusCode: 500,
      errorCode: 'http_error',
      excerpt: errorPage,
    });
    await addAttempt(first, 2, { startedAt: '2025-05-01T10:00:31Z', durationMs: 35, statusCode: 200, excerpt: 'ok' });
    const second = await addDelivery(wallet, {
      txidIn: `0x${'b'.repeat(64)}`,
      status: 'pending',
      attemptCount: 1,
      createdAt: '2025-05-02T10:00:00Z',
      nextAttemptAt: '2025-05-02T10:00:40Z',
    });
    await addAttempt(second, 1, {
      startedAt: '2025-05-02T10:00:01Z',
      durationMs: 20_000,
      errorCode: 'timeout',
      // The worker's own words about the shop's server are not the merchant's answer.
      error: 'the attempt took longer than 20 s (connect to 203.0.113.77)',
    });

    const response = await status(wallet.ipnToken);
    expect(response.statusCode).toBe(200);
    expect(response.json().callback_log).toEqual({
      delivery_count: 2,
      deliveries: [
        {
          delivery_id: second,
          status: 'pending',
          txid_in: `0x${'b'.repeat(64)}`,
          created_at: '2025-05-02T10:00:00.000Z',
          delivered_at: null,
          next_attempt_at: '2025-05-02T10:00:40.000Z',
          attempt_count: 1,
          resend_count: 0,
          resent_at: null,
          attempts: [
            {
              attempt_no: 1,
              started_at: '2025-05-02T10:00:01.000Z',
              duration_ms: 20_000,
              http_status: null,
              error_code: 'timeout',
              response_excerpt: '',
              response_excerpt_truncated: false,
            },
          ],
        },
        {
          delivery_id: first,
          status: 'delivered',
          txid_in: `0x${'a'.repeat(64)}`,
          created_at: '2025-05-01T10:00:00.000Z',
          delivered_at: '2025-05-01T10:01:00.000Z',
          // Delivered: no attempt is coming.
          next_attempt_at: null,
          attempt_count: 2,
          resend_count: 0,
          resent_at: null,
          attempts: [
            {
              attempt_no: 2,
              started_at: '2025-05-01T10:00:31.000Z',
              duration_ms: 35,
              http_status: 200,
              error_code: null,
              response_excerpt: 'ok',
              response_excerpt_truncated: false,
            },
            {
              attempt_no: 1,
              started_at: '2025-05-01T10:00:00.000Z',
              duration_ms: 120,
              http_status: 500,
              error_code: 'http_error',
              response_excerpt: errorPage.slice(0, 200),
              response_excerpt_truncated: true,
            },
          ],
        },
      ],
    });
    expect(response.body).not.toContain('203.0.113.77');
    // The fields PayGate-style plugins read are there as before.
    expect(response.json()).toMatchObject({ status: 'unpaid', value_coin: '0', deposits: [], payments: [] });
  });

  it('is bounded: the newest 10 callbacks, the newest 5 attempts of each, with the totals', async () => {
    const wallet = await newWallet();
    const ids: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      ids.push(await addDelivery(wallet, { status: 'failed', createdAt: `2025-06-01T10:${String(i).padStart(2, '0')}:00Z` }));
    }
    const newest = ids[11]!;
    await fixture.db.pool.query('UPDATE callback_deliveries SET attempt_count = 7 WHERE id = $1', [newest]);
    for (let n = 1; n <= 7; n += 1) {
      await addAttempt(newest, n, { startedAt: `2025-06-01T11:0${n}:00Z`, statusCode: 503, errorCode: 'http_error', excerpt: 'busy' });
    }
    const log = (await status(wallet.ipnToken)).json().callback_log;
    expect(log.delivery_count).toBe(12);
    expect(log.deliveries.map((delivery: { delivery_id: string }) => delivery.delivery_id)).toEqual(ids.slice(2).reverse());
    expect(log.deliveries[0].attempt_count).toBe(7);
    expect(log.deliveries[0].attempts.map((attempt: { attempt_no: number }) => attempt.attempt_no)).toEqual([7, 6, 5, 4, 3]);
  });

  it("shows a wallet's own callbacks only", async () => {
    const mine = await newWallet();
    const theirs = await newWallet();
    await addDelivery(theirs, { status: 'delivered' });
    expect((await status(mine.ipnToken)).json().callback_log).toEqual({ delivery_count: 0, deliveries: [] });
    expect((await status(theirs.ipnToken)).json().callback_log.delivery_count).toBe(1);
  });
});

describe('POST /control/resend-callback.php', () => {
  it('moves the latest, delivered callback back to pending, the same delivery, once; a second request within 5 minutes is 429', async () => {
    const wallet = await newWallet();
    const id = await addDelivery(wallet, {
      status: 'delivered',
      attemptCount: 1,
      deliveredAt: sqlExpression("now() - interval '1 hour'"),
      nextAttemptAt: sqlExpression("now() - interval '1 hour'"),
    });
    await addAttempt(id, 1, { startedAt: new Date(Date.now() - 3_600_000).toISOString(), statusCode: 200, excerpt: 'ok' });

    const response = await resend(wallet.ipnToken);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({ status: 'success', delivery_id: id, delivery_status: 'pending', next_attempt_at: expect.any(String) });
    expect(Math.abs(Date.parse(body.next_attempt_at) - Date.now())).toBeLessThan(5_000);
    expect(await deliveryRow(id)).toEqual({
      status: 'pending',
      attempt_count: 1,
      // A new retry round: the full schedule again if the shop does not answer this time.
      round_start_attempts: 1,
      resend_count: 1,
      resent_at: expect.any(Date),
      next_attempt_at: new Date(body.next_attempt_at),
    });
    // The same row queued again, not a new callback.
    const { rows } = await fixture.db.pool.query('SELECT id FROM callback_deliveries WHERE wallet_id = $1', [wallet.id]);
    expect(rows).toEqual([{ id }]);
    expect((await status(wallet.ipnToken)).json().callback_log.deliveries[0]).toMatchObject({
      delivery_id: id,
      status: 'pending',
      next_attempt_at: body.next_attempt_at,
      resend_count: 1,
      resent_at: expect.any(String),
    });

    // Mark it delivered again (the worker would): asking again within the window is refused anyway.
    await fixture.db.pool.query(`UPDATE callback_deliveries SET status = 'delivered' WHERE id = $1`, [id]);
    const again = await resend(wallet.ipnToken);
    expect(again.statusCode).toBe(429);
    expect(again.json()).toEqual({
      status: 'error',
      code: 'rate_limited',
      error: expect.stringMatching(/asked for again less than 5 minutes ago/),
      param: 'ipn_token',
    });
    const retryAfter = Number(again.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(290);
    expect(retryAfter).toBeLessThanOrEqual(300);
    expect(await deliveryRow(id)).toMatchObject({ status: 'delivered', resend_count: 1 });
  });

  it('resends a failed latest callback too, and the latest only', async () => {
    const wallet = await newWallet();
    const older = await addDelivery(wallet, { status: 'failed', createdAt: sqlExpression("now() - interval '2 days'") });
    const latest = await addDelivery(wallet, { status: 'failed', attemptCount: 19 });
    expect((await resend(wallet.ipnToken)).json()).toMatchObject({ delivery_id: latest });
    expect(await deliveryRow(latest)).toMatchObject({ status: 'pending', round_start_attempts: 19, resend_count: 1 });
    expect(await deliveryRow(older)).toMatchObject({ status: 'failed', resend_count: 0 });
  });

  it('a latest callback still on its way: 409, left as it is', async () => {
    const wallet = await newWallet();
    const id = await addDelivery(wallet, { status: 'pending', attemptCount: 3, nextAttemptAt: '2099-01-01T00:00:00Z' });
    const response = await resend(wallet.ipnToken);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({
      status: 'error',
      code: 'conflict',
      error: `the latest callback (delivery ${id}) is still on its way: its next attempt is due at 2099-01-01T00:00:00.000Z; nothing to resend until it is delivered or given up on`,
      param: 'ipn_token',
    });
    expect(await deliveryRow(id)).toMatchObject({ status: 'pending', resend_count: 0, next_attempt_at: new Date('2099-01-01T00:00:00Z') });
  });

  it('nothing to resend yet: 409, and asking does not use up the window', async () => {
    const wallet = await newWallet();
    for (let i = 0; i < 2; i += 1) {
      const response = await resend(wallet.ipnToken);
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({
        code: 'conflict',
        error: expect.stringMatching(/^nothing to resend yet/),
        param: 'ipn_token',
      });
    }
    const id = await addDelivery(wallet, { status: 'delivered' });
    expect((await resend(wallet.ipnToken)).json()).toMatchObject({ status: 'success', delivery_id: id });
  });

  it('refuses an unknown token as payment-status.php does (404), a malformed or missing one (400), and changes nothing', async () => {
    const wallet = await newWallet();
    const id = await addDelivery(wallet, { status: 'delivered' });
    const unknown = await resend(randomBytes(24).toString('base64url'));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({
      status: 'error',
      code: 'not_found',
      error: expect.stringMatching(/no wallet has this ipn_token/),
      param: 'ipn_token',
    });
    // One character off is another token.
    const near = `${wallet.ipnToken.slice(0, -1)}${wallet.ipnToken.endsWith('A') ? 'B' : 'A'}`;
    expect((await resend(near)).statusCode).toBe(404);
    expect((await resend('abc')).json()).toMatchObject({ code: 'invalid_parameter', param: 'ipn_token' });
    expect((await resend(undefined)).json()).toMatchObject({ code: 'missing_parameter', param: 'ipn_token' });
    expect(await deliveryRow(id)).toMatchObject({ status: 'delivered', resend_count: 0 });
  });

  it("another wallet's token resends that wallet's callback, never this one's", async () => {
    const mine = await newWallet();
    const theirs = await newWallet();
    const myCallback = await addDelivery(mine, { status: 'delivered' });
    const theirCallback = await addDelivery(theirs, { status: 'delivered' });
    expect((await resend(theirs.ipnToken)).json()).toMatchObject({ delivery_id: theirCallback });
    expect(await deliveryRow(myCallback)).toMatchObject({ status: 'delivered', resend_count: 0 });
    // Their window is theirs: this wallet may still ask.
    expect((await resend(mine.ipnToken)).json()).toMatchObject({ delivery_id: myCallback });
  });

  it('is a POST: GET is 405 with Allow: POST', async () => {
    const wallet = await newWallet();
    const response = await app.inject({ url: '/control/resend-callback.php', query: { ipn_token: wallet.ipnToken } });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('POST');
  });

  it('has the per-client limit payment-status.php has', async () => {
    const limited = createTestRedis('resend-limit');
    const tight = await fixture.build(fixture.config({ REDIS_PREFIX: limited.prefix, STATUS_RATE_LIMIT_MAX: '2' }), { redis: limited });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await resend(randomBytes(24).toString('base64url'), tight, '203.0.113.9')).statusCode);
      expect(statuses).toEqual([404, 404, 429]);
    } finally {
      await tight.close();
      await limited.close();
    }
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await app.inject({ url: '/docs/json' })).json();
    const operation = doc.paths['/control/resend-callback.php'].post;
    expect(operation.parameters.map((p: { name: string; in: string; required: boolean }) => [p.name, p.in, p.required])).toEqual([
      ['ipn_token', 'query', true],
    ]);
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '404', '409', '429']);
  });
});
