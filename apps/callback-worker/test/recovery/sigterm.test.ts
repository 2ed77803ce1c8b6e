import type { ChildProcess } from 'node:child_process';
import { seedDelivery, seedWallet } from '@gateway/app-testkit';
import { waitFor } from '@gateway/testkit';
import { attemptRows, deliveryRow } from '../support/fixtures';
import { MerchantStub } from '../support/merchant-stub';
import { useWorkerFixture } from '../support/worker-fixture';
import type { TestDatabase } from '@gateway/app-testkit';

// Longer than the 10 s after which the process used to be cut off on SIGTERM.
const MERCHANT_ANSWERS_AFTER_MS = 11_000;
const merchant = new MerchantStub();
const fixture = useWorkerFixture('cbw_sigterm', [merchant]);
let db: TestDatabase;
let child: ChildProcess | undefined;

beforeAll(() => {
  db = fixture.db;
  merchant.on('/slow', () => ({ status: 200, body: 'ok', delayMs: MERCHANT_ANSWERS_AFTER_MS }));
  fixture.onTeardown(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
});

it('on SIGTERM lets the attempt in flight finish, commits its record and exits 0', async () => {
  const wallet = await seedWallet(db.pool, { callbackUrl: `${merchant.origin}/slow?order=term` });
  const id = await seedDelivery(db.pool, { walletId: wallet.id });
  await fixture.queueDeliveries([id!]);

  // The real process, as `pnpm --filter @gateway/callback-worker start` runs it, with the default grace period.
  const env = fixture.env({ CALLBACK_HEADERS_TIMEOUT_SECONDS: '15', CALLBACK_ATTEMPT_TIMEOUT_SECONDS: '20' });
  const worker = fixture.spawnWorker(env, 'pipe');
  child = worker;
  let stderr = '';
  worker.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    worker.once('exit', (code, signal) => resolve({ code, signal })),
  );

  await waitFor('the attempt to be in flight', () => merchant.receivedOn('/slow').length === 1, 20_000);
  const signalledAt = Date.now();
  worker.kill('SIGTERM');
  const { code, signal } = await exited;

  expect({ code, signal, stderr }).toEqual({ code: 0, signal: null, stderr: '' });
  expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(MERCHANT_ANSWERS_AFTER_MS - 1_000);
  expect(await deliveryRow(db.pool, id!)).toMatchObject({ status: 'delivered', attempt_count: 1 });
  const attempts = await attemptRows(db.pool, id!);
  expect(attempts).toMatchObject([{ attempt_no: 1, status_code: 200, error_code: null }]);
  expect(attempts[0]!.duration_ms).toBeGreaterThanOrEqual(MERCHANT_ANSWERS_AFTER_MS);
  expect(merchant.receivedOn('/slow')).toHaveLength(1);
}, 60_000);
