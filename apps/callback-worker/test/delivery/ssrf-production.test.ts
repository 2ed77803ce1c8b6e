import type { FastifyInstance } from 'fastify';
import { startAclRedis, type AclRedis, type TestDatabase } from '@gateway/app-testkit';
import { waitFor } from '@gateway/testkit';
import { attemptRows, deliveryRow } from '../support/fixtures';
import { MerchantStub } from '../support/merchant-stub';
import { useWorkerFixture } from '../support/worker-fixture';

const stub = new MerchantStub();
const fixture = useWorkerFixture('cbw_ssrf', [stub]);
let db: TestDatabase;
let worker: FastifyInstance;
// Production connects the worker as its own Redis user: a private redis-server with the apps' users.
let acl: AclRedis;

beforeAll(async () => {
  db = fixture.db;
  acl = await startAclRedis('ssrf');
  // The production setting: no allow-list, so only public unicast addresses may be called.
  worker = await fixture.startWorker({
    env: { NODE_ENV: 'production', CALLBACK_ALLOWED_CIDRS: '', REDIS_URL: acl.urlOf('callback-worker'), REDIS_PREFIX: acl.prefix },
  });
});
afterAll(async () => {
  await worker?.close();
  await acl?.stop();
});

// https, as production requires: the guard refuses the address before any TLS.
it.each([
  ['loopback by address', () => `${stub.origin.replace('http:', 'https:')}/ipn?order=1`, /127\.0\.0\.1: loopback address/],
  ['cloud metadata (link-local)', () => 'https://169.254.169.254/latest/meta-data/?order=1', /169\.254\.169\.254: linkLocal address/],
  ['a name that resolves to loopback', () => `https://localhost:${new URL(stub.origin).port}/ipn?order=2`, /resolved from localhost/],
])('refuses %s at once, without retries, and says why', async (_case, callbackUrl, reason) => {
  const {
    ids: [id],
  } = await fixture.deliver(worker, callbackUrl(), 1);
  await waitFor('the delivery to fail', async () => (await deliveryRow(db.pool, id!)).status === 'failed', 10_000);

  expect(await deliveryRow(db.pool, id!)).toMatchObject({ status: 'failed', attempt_count: 1 });
  const attempts = await attemptRows(db.pool, id!);
  expect(attempts).toHaveLength(1);
  expect(attempts[0]).toMatchObject({ error_code: 'ssrf_refused', status_code: null });
  expect(attempts[0]?.error).toMatch(reason);
  expect(attempts[0]!.duration_ms).toBeLessThan(1000);
  expect(stub.received).toHaveLength(0);
});

it('never sends a callback over http in production (one registered before the rule): failed at once, nothing sent', async () => {
  // Loopback, so that without the rule the attempt would still reach nothing outside this machine.
  const {
    ids: [id],
  } = await fixture.deliver(worker, `${stub.origin}/ipn?order=plain`, 1);
  await waitFor('the delivery to fail', async () => (await deliveryRow(db.pool, id!)).status === 'failed', 10_000);
  const attempts = await attemptRows(db.pool, id!);
  expect(attempts).toMatchObject([{ attempt_no: 1, error_code: 'https_required', status_code: null }]);
  expect(attempts[0]?.error).toMatch(/must use https in production/);
  expect(stub.received).toHaveLength(0);
});
