import type { ChildProcess } from 'node:child_process';
import { CALLBACK_DELIVERY_ID_HEADER } from '@usdc-card-gateway/sdk';
import { seedDeliveries, seedWallet } from '@gateway/app-testkit';
import { waitFor } from '@gateway/testkit';
import { countByStatus } from '../support/fixtures';
import { MerchantStub } from '../support/merchant-stub';
import { useWorkerFixture } from '../support/worker-fixture';
import type { TestDatabase } from '@gateway/app-testkit';

const CONCURRENCY = 20;
const stub = new MerchantStub();
const fixture = useWorkerFixture('cbw_crash', [stub]);
const children: ChildProcess[] = [];
let db: TestDatabase;

/** The real worker process, as `pnpm --filter @gateway/callback-worker start` runs it. */
function startWorkerProcess(): ChildProcess {
  const child = fixture.spawnWorker(
    fixture.env({ WORKER_CONCURRENCY: String(CONCURRENCY), PER_HOST_CONCURRENCY: String(CONCURRENCY) }),
    'inherit',
  );
  children.push(child);
  return child;
}

beforeAll(() => {
  db = fixture.db;
  stub.on('/ipn', () => ({ status: 200, body: 'ok', delayMs: 50 }));
  fixture.onTeardown(() => Promise.all(children.map((child) => stopGracefully(child))));
});

it('delivers everything after the worker is killed with SIGKILL mid-batch; a repeat carries the same delivery id', async () => {
  const wallet = await seedWallet(db.pool, { callbackUrl: `${stub.origin}/ipn?order=crash` });
  const ids = await seedDeliveries(db.pool, Array(300).fill({ walletId: wallet.id }));
  await fixture.queueDeliveries(ids);

  const first = startWorkerProcess();
  await waitFor('the first worker to be half-way', () => stub.received.length >= 100, 30_000);
  first.kill('SIGKILL');
  await new Promise((resolve) => first.once('exit', resolve));
  const deliveredAtKill = (await countByStatus(db.pool, ids)).delivered ?? 0;
  expect(deliveredAtKill).toBeLessThan(300);

  // Attempts the dead worker held come back when their lease (and the BullMQ lock) runs out.
  startWorkerProcess();
  await waitFor('all 300 to be delivered', async () => (await countByStatus(db.pool, ids)).delivered === 300, 90_000);

  const { rows } = await db.pool.query<{ id: string; txid_in: string }>(
    'SELECT id, txid_in FROM callback_deliveries WHERE id = ANY($1::uuid[])',
    [ids],
  );
  const idByTxid = new Map(rows.map((row) => [row.txid_in, row.id]));
  const headersByDelivery = new Map<string, string[]>();
  for (const request of stub.received) {
    const txid = new URL(`${stub.origin}${request.url}`).searchParams.get('txid_in') ?? '';
    headersByDelivery.set(txid, [...(headersByDelivery.get(txid) ?? []), String(request.headers[CALLBACK_DELIVERY_ID_HEADER])]);
  }
  expect(headersByDelivery.size).toBe(300);
  for (const [txid, headers] of headersByDelivery) {
    expect(new Set(headers)).toEqual(new Set([idByTxid.get(txid)]));
  }
  // Only callbacks in flight when the process died can have gone out twice: the requests open
  // (at most CONCURRENCY) and those answered whose record was still being written behind the
  // finished job (those that finished during one batch round trip: fewer than CONCURRENCY here).
  const duplicates = stub.received.length - 300;
  expect(duplicates).toBeGreaterThanOrEqual(0);
  expect(duplicates).toBeLessThanOrEqual(2 * CONCURRENCY);
}, 120_000);

/** SIGTERM (finish what is in flight, close Redis and PostgreSQL), SIGKILL if that takes too long. */
async function stopGracefully(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
