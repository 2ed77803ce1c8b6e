import { join } from 'node:path';
import { ANY_LOOPBACK_PORTS, killStartedApps, startAppProcess, startRedisServer } from '@gateway/testkit';
import { walletControlFixture } from '../support/wallet-control-fixture';

// wallet-control keeps no queue in Redis (rate-limit counters, payout quotas, cached rates: an evicted
// key is a window counted afresh), so it runs whatever maxmemory-policy its Redis has; the queue apps refuse.
const MAIN = join(__dirname, '..', '..', 'src', 'main.ts');
const fixture = walletControlFixture('any_redis_policy');

afterEach(killStartedApps);

it('starts and is ready on a Redis that evicts keys', async () => {
  const evicting = await startRedisServer({ maxmemoryPolicy: 'allkeys-lru' });
  try {
    const run = startAppProcess(MAIN, fixture.env({ ...ANY_LOOPBACK_PORTS, REDIS_URL: evicting.url }));
    const port = await run.port;
    const readyz = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(await readyz.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', servers: 'ok' } });
  } finally {
    killStartedApps();
    await evicting.stop();
  }
});
