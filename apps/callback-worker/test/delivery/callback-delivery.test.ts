import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { getAddress } from 'viem';
import { callbackJobId, enqueueDeliveries } from '@gateway/queue';
import { CALLBACK_DELIVERY_ID_HEADER, CALLBACK_SIGNATURE_HEADER, verifyCallbackSignature } from '@usdc-card-gateway/sdk';
import { WalletRepository } from '@gateway/db/wallet-control';
import { runGateway, seedDeliveries, seedDelivery, seedWallet } from '@gateway/app-testkit';
import { waitFor } from '@gateway/testkit';
import { attemptRows, deliveryRow, signingKeyPair } from '../support/fixtures';
import { closedPort, MerchantStub } from '../support/merchant-stub';
import { useWorkerFixture } from '../support/worker-fixture';
import type { TestDatabase } from '@gateway/app-testkit';

// Two keys, newest first, as during a rotation: every callback carries one v1 per key.
const newKey = signingKeyPair('k2');
const oldKey = signingKeyPair('k1');
const stub = new MerchantStub();
const fixture = useWorkerFixture('cbw_delivery', [stub]);

let db: TestDatabase;
let worker: FastifyInstance;

async function deliver(callbackUrl: string, count = 1, values = {}) {
  // As settlement does: the rows are committed first, the jobs added after.
  return fixture.deliver(worker, callbackUrl, count, values);
}

async function waitForStatus(id: string, status: string, timeoutMs = 15_000) {
  await waitFor(`delivery ${id} to be ${status}`, async () => (await deliveryRow(db.pool, id)).status === status, timeoutMs);
}

beforeAll(async () => {
  db = fixture.db;
  worker = await fixture.startWorker({ keys: [newKey, oldKey] });
});

describe('the callback a merchant receives', () => {
  it('is a GET to the registered URL with every original parameter unchanged, then ours', async () => {
    const query = 'order=1001&note=a%20b&plus=a+b&enc=a%2Bb&rep=1&rep=2&empty=&name=%C3%A9t%C3%A9&flag';
    const txidIn = `0x${'a1'.repeat(32)}`;
    const txidOut = `0x${'b2'.repeat(32)}`;
    const { wallet, ids } = await deliver(`${stub.origin}/params.php?${query}`, 1, {
      valueCoin: 12_500_001n,
      valueForwardedCoin: 12_375_001n,
      feeCoin: 125_000n,
      txidIn,
      txidOut,
    });
    await waitForStatus(ids[0]!, 'delivered');

    const [request] = stub.receivedOn('/params.php');
    const ours =
      `value_coin=12.500001&value_forwarded_coin=12.375001&fee_coin=0.125&coin=polygon_usdc` +
      `&txid_in=${txidIn}&txid_out=${txidOut}&address_in=${getAddress(wallet.polygonAddress)}` +
      // The payout address the merchant's share was paid to, inside the signed URL (issue 17).
      `&address_out=${getAddress(wallet.payoutAddress)}&ipn_token=${wallet.ipnToken}`;
    expect(request?.url).toBe(`/params.php?${query}&${ours}`);
    expect(request?.headers['user-agent']).toBe('usdc-card-gateway/0.1.0');
    expect(request?.headers[CALLBACK_DELIVERY_ID_HEADER]).toBe(ids[0]);
    const repeated = new URL(`${stub.origin}${request?.url}`).searchParams.getAll('rep');
    expect(repeated).toEqual(['1', '2']);
  });

  it('is signed over the URL as sent by every key; a tampered URL fails to verify', async () => {
    const { wallet, ids } = await deliver(`${stub.origin}/signed?order=7`);
    await waitForStatus(ids[0]!, 'delivered');
    const [request] = stub.receivedOn('/signed');
    const header = request?.headers[CALLBACK_SIGNATURE_HEADER];
    const deliveryId = request?.headers[CALLBACK_DELIVERY_ID_HEADER];
    // One v1 (URL) and one v2 (delivery id and URL) per key, newest key first.
    expect(header).toMatch(/^t=\d+(,v1=[^,]+,v2=[^,]+){2}$/);
    const url = `${stub.origin}${request?.url}`;
    for (const key of [newKey, oldKey]) {
      expect(
        verifyCallbackSignature({
          expectedAmount: false,
          url,
          header,
          deliveryId,
          publicKeys: [key.publicKey],
          payoutAddress: wallet.payoutAddress,
        }),
      ).toMatchObject({
        ok: true,
        scheme: 'v2',
        deliveryId: ids[0],
      });
    }
    const tampered = url.replace('value_coin=10', 'value_coin=99');
    expect(tampered).not.toBe(url);
    expect(
      verifyCallbackSignature({
        expectedAmount: false,
        url: tampered,
        header,
        deliveryId,
        publicKeys: [newKey.publicKey, oldKey.publicKey],
        payoutAddress: wallet.payoutAddress,
      }),
    ).toEqual({ ok: false, reason: 'no_matching_signature' });
  });

  it('signs the delivery id, so a captured callback replayed under a fresh id fails to verify', async () => {
    const { wallet, ids } = await deliver(`${stub.origin}/replayed?order=8`);
    await waitForStatus(ids[0]!, 'delivered');
    const [request] = stub.receivedOn('/replayed');
    const header = request?.headers[CALLBACK_SIGNATURE_HEADER];
    const url = `${stub.origin}${request?.url}`;
    const publicKeys = [newKey.publicKey, oldKey.publicKey];
    const payoutAddress = wallet.payoutAddress;
    expect(verifyCallbackSignature({ expectedAmount: false, url, header, deliveryId: ids[0], publicKeys, payoutAddress }).ok).toBe(true);
    // Same URL, same signature header, inside the tolerance: only the id differs.
    expect(verifyCallbackSignature({ expectedAmount: false, url, header, deliveryId: randomUUID(), publicKeys, payoutAddress })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('counts any 2xx as delivered: "ok", JSON or no content', async () => {
    stub.on('/json', () => ({ status: 200, body: '{"status":"ok"}', contentType: 'application/json' }));
    stub.on('/created', () => ({ status: 201, body: '{}', contentType: 'application/json' }));
    stub.on('/empty', () => ({ status: 204 }));
    const ids = [
      ...(await deliver(`${stub.origin}/json?o=1`)).ids,
      ...(await deliver(`${stub.origin}/created?o=1`)).ids,
      ...(await deliver(`${stub.origin}/empty?o=1`)).ids,
    ];
    for (const id of ids) await waitForStatus(id, 'delivered');
    const [json] = await attemptRows(db.pool, ids[0]!);
    expect(json).toMatchObject({ attempt_no: 1, status_code: 200, error_code: null, response_excerpt: '{"status":"ok"}' });
  });
});

describe('retries', () => {
  it('retries a merchant that answers 500 three times, then records one delivery with four attempts', async () => {
    stub.on('/flaky', (_request, nth) => (nth <= 3 ? { status: 500, body: 'database is down' } : { status: 200, body: 'ok' }));
    const { ids } = await deliver(`${stub.origin}/flaky?order=42`);
    const id = ids[0]!;
    await waitForStatus(id, 'delivered');

    const row = await deliveryRow(db.pool, id);
    expect(row).toMatchObject({ status: 'delivered', attempt_count: 4 });
    expect(row.delivered_at).toBeInstanceOf(Date);
    const attempts = await attemptRows(db.pool, id);
    expect(attempts.map((a) => [a.attempt_no, a.status_code, a.error_code])).toEqual([
      [1, 500, 'http_error'],
      [2, 500, 'http_error'],
      [3, 500, 'http_error'],
      [4, 200, null],
    ]);
    expect(attempts[0]?.response_excerpt).toBe('database is down');
    expect(attempts[0]?.error).toMatch(/answered 500/);
    // Backoff: each wait is longer than the previous one (200, 400, 800 ms ± 20% here).
    const gaps = attempts.slice(1).map((a, i) => a.started_at.getTime() - attempts[i]!.started_at.getTime());
    expect(gaps[1]!).toBeGreaterThan(gaps[0]!);
    expect(gaps[2]!).toBeGreaterThan(gaps[1]!);
    expect(stub.receivedOn('/flaky')).toHaveLength(4);
    expect(new Set(stub.receivedOn('/flaky').map((r) => r.headers[CALLBACK_DELIVERY_ID_HEADER]))).toEqual(new Set([id]));
  });

  it('never counts a 4xx as delivered: a merchant answering 404, then 410, is retried after each and delivered only at its 200', async () => {
    // A refusal may be a merchant deploy gone wrong for a few minutes: the short schedule retries it
    // (refusing-merchant.test.ts); counted as delivered, the shop would never hear of the payment.
    const answers = [
      { status: 404, body: 'no such route' },
      { status: 410, body: 'gone' },
    ];
    stub.on('/redeploying', (_request, nth) => answers[nth - 1] ?? { status: 200, body: 'ok' });
    const { ids } = await deliver(`${stub.origin}/redeploying?order=43`);
    const id = ids[0]!;
    await waitForStatus(id, 'delivered');

    expect((await attemptRows(db.pool, id)).map((a) => [a.attempt_no, a.status_code, a.error_code])).toEqual([
      [1, 404, 'http_error'],
      [2, 410, 'http_error'],
      [3, 200, null],
    ]);
    expect(await deliveryRow(db.pool, id)).toMatchObject({ status: 'delivered', attempt_count: 3 });
    expect(stub.receivedOn('/redeploying')).toHaveLength(3);
  });

  it('schedules retries while the merchant is down, fails after the schedule, and an operator resend delivers it', async () => {
    const port = await closedPort();
    const { ids } = await deliver(`http://127.0.0.1:${port}/down?order=9`);
    const id = ids[0]!;

    await waitFor(
      'a first attempt',
      async () => (await deliveryRow(db.pool, id)).attempt_count >= 1 && (await attemptRows(db.pool, id)).length >= 1,
      10_000,
    );
    const afterFirst = await deliveryRow(db.pool, id);
    const [first] = await attemptRows(db.pool, id);
    expect(afterFirst.status).toBe('pending');
    expect(first?.error_code).toBe('connect_failed');
    expect(afterFirst.next_attempt_at.getTime()).toBeGreaterThan(first!.started_at.getTime());
    expect(afterFirst.last_error).toMatch(/ECONNREFUSED/);

    // 1 attempt + CALLBACK_RETRY_MAX_RETRIES (4) retries, then failed.
    await waitForStatus(id, 'failed', 20_000);
    expect((await attemptRows(db.pool, id)).map((a) => a.error_code)).toEqual(Array(5).fill('connect_failed'));
    expect(await worker.callbackQueue.getJob(callbackJobId(id))).toBeUndefined();

    const merchantBack = await new MerchantStub().start(port);
    try {
      const output = await resendCommand(id);
      expect(output.code).toBe(0);
      expect(output.stdout).toMatch(/pending again and queued/);
      await waitForStatus(id, 'delivered');
      expect(await deliveryRow(db.pool, id)).toMatchObject({ attempt_count: 6, resend_count: 1 });
      expect((await attemptRows(db.pool, id)).at(-1)).toMatchObject({ attempt_no: 6, status_code: 200 });
      expect(merchantBack.received).toHaveLength(1);
    } finally {
      await merchantBack.close();
    }
  });

  it('refuses to resend a delivery that has not failed', async () => {
    const { ids } = await deliver(`${stub.origin}/fine?o=1`);
    await waitForStatus(ids[0]!, 'delivered');
    const output = await resendCommand(ids[0]!);
    expect(output.code).toBe(1);
    expect(output.stderr).toMatch(/is delivered; only failed or refused deliveries can be resent/);
  });
});

describe('callbacks whose URL holds a name the gateway reserved later', () => {
  it("delivers them: the gateway's value wins, the merchant's same-named parameter is dropped, the signature holds", async () => {
    // Create Wallet refuses such a URL today; this row stands for a wallet registered before the
    // name was reserved (written directly, around Create Wallet).
    const { wallet, ids } = await deliver(`${stub.origin}/clash?order=5&coin=eth&value%5Fcoin=1000&note=x`);
    await waitForStatus(ids[0]!, 'delivered');
    const [request] = stub.receivedOn('/clash');
    expect(request?.url).toMatch(/^\/clash\?order=5&note=x&value_coin=10&value_forwarded_coin=9\.9&fee_coin=0\.1&coin=polygon_usdc&/);
    const query = new URL(`${stub.origin}${request?.url}`).searchParams;
    expect(query.getAll('coin')).toEqual(['polygon_usdc']);
    expect(query.getAll('value_coin')).toEqual(['10']);
    expect(query.get('ipn_token')).toBe(wallet.ipnToken);
    const url = `${stub.origin}${request?.url}`;
    const verdict = verifyCallbackSignature({
      expectedAmount: false,
      url,
      header: request?.headers[CALLBACK_SIGNATURE_HEADER],
      deliveryId: request?.headers[CALLBACK_DELIVERY_ID_HEADER],
      publicKeys: [newKey.publicKey],
      payoutAddress: wallet.payoutAddress,
    });
    expect(verdict).toMatchObject({ ok: true, scheme: 'v2' });
    expect(await attemptRows(db.pool, ids[0]!)).toMatchObject([{ attempt_no: 1, status_code: 200, error_code: null }]);
  });
});

describe('a wallet whose callback the operator released (gateway callbacks release)', () => {
  it('never calls the URL for it: its deliveries fail at once, also on a resend, and a new owner of the URL is called', async () => {
    const callbackUrl = `${stub.origin}/released?order=9`;
    const { wallet, ids } = await deliver(callbackUrl);
    await waitForStatus(ids[0]!, 'delivered');
    await new WalletRepository(db.pool).releaseCallback(callbackUrl);

    const id = await seedDelivery(db.pool, { walletId: wallet.id });
    await enqueueDeliveries(worker.callbackQueue, [id!]);
    await waitForStatus(id!, 'failed');
    expect(await attemptRows(db.pool, id!)).toMatchObject([{ attempt_no: 1, error_code: 'callback_released', status_code: null }]);
    expect((await attemptRows(db.pool, id!))[0]?.error).toMatch(/released by the operator/);
    expect((await resendCommand(id!)).code).toBe(0);
    await waitFor('the resent attempt', async () => (await attemptRows(db.pool, id!)).length === 2, 10_000);
    await waitForStatus(id!, 'failed');
    expect(stub.receivedOn('/released')).toHaveLength(1);

    // The URL's new owner (the shop registering it again) is called as usual.
    const owner = await deliver(callbackUrl);
    await waitForStatus(owner.ids[0]!, 'delivered');
    expect(stub.receivedOn('/released')).toHaveLength(2);
  });
});

describe('DNS', () => {
  it('retries a name that does not resolve, like any network error', async () => {
    const { ids } = await deliver('http://no-such-merchant.invalid/ipn?order=11');
    const id = ids[0]!;
    await waitFor('two attempts', async () => (await attemptRows(db.pool, id)).length >= 2, 10_000);
    const attempts = await attemptRows(db.pool, id);
    expect(attempts[0]).toMatchObject({ attempt_no: 1, error_code: 'dns_failed', status_code: null });
    expect(attempts[0]?.error).toMatch(/^DNS lookup of no-such-merchant\.invalid failed/);
    expect((await deliveryRow(db.pool, id)).status).not.toBe('failed');
    await db.pool.query(`UPDATE callback_deliveries SET status = 'failed' WHERE id = $1`, [id]);
  });
});

describe('recovery and observability', () => {
  it('delivers rows that never got a job: the reconciler finds them in PostgreSQL', async () => {
    const wallet = await seedWallet(db.pool, { callbackUrl: `${stub.origin}/orphans?o=1` });
    const ids = await seedDeliveries(db.pool, Array(3).fill({ walletId: wallet.id }));
    for (const id of ids) await waitForStatus(id, 'delivered', 10_000);
    expect(stub.receivedOn('/orphans')).toHaveLength(3);
  });

  it('exposes delivery metrics', async () => {
    const response = await worker.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatch(/callback_attempts_total\{outcome="delivered",error_code="",service="callback-worker"\} \d+/);
    expect(response.body).toMatch(/callback_attempts_total\{outcome="retry",error_code="http_error"/);
    expect(response.body).toMatch(/callback_deliveries_total\{outcome="failed"/);
    expect(response.body).toMatch(/callback_attempt_duration_seconds_bucket/);
    expect(response.body).toMatch(/callback_queue_jobs\{state="waiting",service="callback-worker"\} \d+/);
    expect(response.body).toMatch(/callback_oldest_due_seconds\{service="callback-worker"\} [\d.]+/);
    // From the payout (the delivery written) to the merchant's 2xx: one sample per delivered callback.
    expect(response.body).toMatch(/callback_forwarded_to_delivered_seconds_count\{service="callback-worker"\} [1-9]/);
    const health = await worker.inject({ method: 'GET', url: '/readyz' });
    expect(health.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
  });
});

const resendCommand = (id: string) => runGateway(['callbacks', 'resend', id], fixture.env({}, [newKey]));
