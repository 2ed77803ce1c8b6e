import { join } from 'node:path';
import IORedis from 'ioredis';
import { killStartedApps, startAppProcess, startRedisServer, waitFor, waitForReadyz } from '@gateway/testkit';
import { useWorkerFixture } from '../support/worker-fixture';

// The worker process as deployed (main.ts), on private redis-servers: one started with the policy a
// managed Redis often has by default, one as the gateway requires (the shared Redis is never changed).
const MAIN = join(__dirname, '..', '..', 'src', 'main.ts');
const fixture = useWorkerFixture('cbw_requirements');

afterEach(killStartedApps);

it('refuses to start on a Redis that evicts keys, in one line naming maxmemory-policy and how to set it', async () => {
  const evicting = await startRedisServer({ maxmemoryPolicy: 'allkeys-lru' });
  try {
    const run = startAppProcess(MAIN, fixture.env({ REDIS_URL: evicting.url, LOG_LEVEL: 'info' }));
    run.port.catch(() => undefined);
    expect(await run.exited).toBe(1);
    const lines = run.output().stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^callback-worker: Redis maxmemory-policy is allkeys-lru, and BullMQ needs noeviction .*CONFIG SET maxmemory-policy noeviction as an admin$/,
    );
    // It took no job: it stopped before its queue was opened.
    expect(run.output().stdout).not.toContain('callback worker started');
  } finally {
    await evicting.stop();
  }
});

it('runs on a Redis under noeviction, and is not ready (with one log line and the gauge at 0) once the policy is changed', async () => {
  const redis = await startRedisServer();
  const admin = new IORedis(redis.url);
  try {
    const run = startAppProcess(MAIN, fixture.env({ REDIS_URL: redis.url, LOG_LEVEL: 'info' }));
    const url = `http://127.0.0.1:${await run.port}`;
    await waitForReadyz('callback-worker', url, run.child);
    const gauge = async () => /server_requirements_met\{server="redis"[^}]*\} (\d)/.exec(await (await fetch(`${url}/metrics`)).text())?.[1];
    expect(await gauge()).toBe('1');

    await admin.config('SET', 'maxmemory-policy', 'allkeys-lfu');
    const readyz = await fetch(`${url}/readyz`);
    expect(readyz.status).toBe(503);
    expect(await readyz.json()).toMatchObject({ checks: { servers: 'failing', redis: 'ok', postgres: 'ok' } });
    expect(await gauge()).toBe('0');
    await waitFor('the log line', () => run.output().stdout.includes('Redis maxmemory-policy is allkeys-lfu'), 5_000);
    const errors = run
      .output()
      .stdout.split('\n')
      .filter((line) => line.includes('"level":50'));
    expect(errors).toHaveLength(1);

    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await waitForReadyz('callback-worker', url, run.child, 5_000);
    expect(await gauge()).toBe('1');
  } finally {
    admin.disconnect();
    killStartedApps();
    await redis.stop();
  }
});
