import IORedis from 'ioredis';
import { Pool } from 'pg';
import { postgresMajorVersion, SERVER_REQUIREMENTS } from '@gateway/domain';
import { startRedisServer, TEST_DATABASE_URL, type RunningRedis } from '@gateway/testkit';
import {
  postgresRequirement,
  redisRequirement,
  ServerRequirementError,
  ServerRequirements,
  type ServerRequirement,
} from '../src/boot-checks';
import { createServer } from '../src';

// Real servers: the machine's PostgreSQL, and private redis-servers started with the policy under test
// (the shared Redis's settings are never changed by a test).
let pool: Pool;
let evicting: RunningRedis;
let fit: RunningRedis;
const opened: ServerRequirement[] = [];
const redisOf = (url: string) => {
  const requirement = redisRequirement(url);
  opened.push(requirement);
  return requirement;
};
const setPolicy = async (server: RunningRedis, policy: string) => {
  const admin = new IORedis(server.url);
  await admin.config('SET', 'maxmemory-policy', policy);
  admin.disconnect();
};

beforeAll(async () => {
  pool = new Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
  [evicting, fit] = await Promise.all([startRedisServer({ maxmemoryPolicy: 'allkeys-lru' }), startRedisServer()]);
}, 20_000);

afterAll(async () => {
  await Promise.all(opened.map((requirement) => requirement.close()));
  await pool.end();
  await Promise.all([evicting?.stop(), fit?.stop()]);
});

describe('PostgreSQL', () => {
  it("reads the server's own version and finds it supported (the machine's PostgreSQL is the tested one)", async () => {
    const { rows } = await pool.query<{ server_version: string }>('SHOW server_version');
    expect(postgresMajorVersion(rows[0]!.server_version)).toBeGreaterThanOrEqual(SERVER_REQUIREMENTS.postgres.minimumMajor);
    expect(await postgresRequirement(pool).problems()).toEqual([]);
  });

  it('rejects (does not judge) a PostgreSQL that does not answer', async () => {
    const away = new Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/postgres', max: 1 });
    await expect(postgresRequirement(away).problems()).rejects.toThrow();
    await away.end();
  });
});

describe('Redis', () => {
  it('finds nothing wrong with a supported Redis under noeviction', async () => {
    expect(await redisOf(fit.url).problems()).toEqual([]);
  });

  it('names maxmemory-policy and its fix on a Redis that evicts', async () => {
    const problems = await redisOf(evicting.url).problems();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^Redis maxmemory-policy is allkeys-lru, and BullMQ needs noeviction/);
  });

  it('refuses the boot where the server answers and is unfit, in one line naming the setting', async () => {
    const refusal = new ServerRequirements([postgresRequirement(pool), redisRequirement(evicting.url)]).atBoot();
    await expect(refusal).rejects.toBeInstanceOf(ServerRequirementError);
    await expect(refusal).rejects.toThrow(/^Redis maxmemory-policy is allkeys-lru[^\n]*CONFIG SET maxmemory-policy noeviction[^\n]*$/);
  });

  it('lets the boot go on while Redis does not answer (readiness judges it when it does)', async () => {
    const requirements = new ServerRequirements([postgresRequirement(pool), redisOf('redis://127.0.0.1:1')]);
    await expect(requirements.atBoot()).resolves.toBeUndefined();
  });
});

describe('readiness', () => {
  it('answers at once while Redis is away: not judged here (its own check, where the app has one, reports it)', async () => {
    const app = await createServer({ serviceName: 'requirements-away', description: 'test', logger: false, readiness: {} });
    new ServerRequirements([postgresRequirement(pool), redisRequirement('redis://127.0.0.1:1')]).attachTo(app);
    try {
      for (let probe = 0; probe < 3; probe += 1) {
        const started = Date.now();
        expect((await app.inject('/readyz')).json()).toEqual({ status: 'ok', checks: { servers: 'ok' } });
        expect(Date.now() - started).toBeLessThan(1_000);
      }
    } finally {
      await app.close();
    }
  });

  it('is not ready, logs once and sets the gauge to 0 while Redis evicts; ready again once it does not', async () => {
    const server = await startRedisServer();
    const lines: string[] = [];
    const app = await createServer({
      serviceName: 'requirements-test',
      description: 'test',
      logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } },
      readiness: {},
    });
    new ServerRequirements([postgresRequirement(pool), redisRequirement(server.url)]).attachTo(app);
    const readyz = async () => {
      const response = await app.inject('/readyz');
      return { status: response.statusCode, body: response.json() };
    };
    const gauge = async () =>
      /server_requirements_met\{server="redis",service="requirements-test"\} (\d)/.exec(await app.metrics.metrics())?.[1];
    try {
      expect(await readyz()).toEqual({ status: 200, body: { status: 'ok', checks: { servers: 'ok' } } });
      expect(await gauge()).toBe('1');

      await setPolicy(server, 'volatile-lru');
      expect(await readyz()).toEqual({ status: 503, body: { status: 'unavailable', checks: { servers: 'failing' } } });
      expect(await readyz()).toMatchObject({ status: 503 });
      expect(await gauge()).toBe('0');
      const errors = lines.map((line) => JSON.parse(line)).filter((line) => line.level === 50);
      expect(errors).toEqual([
        expect.objectContaining({ server: 'redis', msg: expect.stringMatching(/^Redis maxmemory-policy is volatile-lru, .*; not ready$/) }),
      ]);

      await setPolicy(server, 'noeviction');
      expect(await readyz()).toMatchObject({ status: 200 });
      expect(await gauge()).toBe('1');
    } finally {
      await app.close();
      await server.stop();
    }
  });
});
