import { join } from 'node:path';
import { killStartedApps, startAppProcess, startRedisServer } from '@gateway/testkit';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';

// payment-redirect keeps BullMQ jobs (provider status checks, recovery e-mails) in its Redis: as the
// workers, it refuses a Redis that may evict them. Its process as deployed (main.ts, runApiApp).
const MAIN = join(__dirname, '..', '..', 'src', 'main.ts');
const fixture = paymentRedirectFixture('server_requirements');

afterEach(killStartedApps);

it('refuses to start on a Redis that evicts keys, in one line naming maxmemory-policy', async () => {
  const evicting = await startRedisServer({ maxmemoryPolicy: 'volatile-lru' });
  try {
    const run = startAppProcess(MAIN, { ...fixture.env(), REDIS_URL: evicting.url });
    run.port.catch(() => undefined);
    expect(await run.exited).toBe(1);
    const lines = run.output().stderr.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^payment-redirect: Redis maxmemory-policy is volatile-lru, and BullMQ needs noeviction/),
    ]);
  } finally {
    await evicting.stop();
  }
});
