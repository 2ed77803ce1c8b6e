import {
  parseRedisInfo,
  postgresMajorVersion,
  postgresVersionProblem,
  redisServerProblems,
  SERVER_REQUIREMENTS,
} from '../src/server-requirements';

const redisInfo = (version: string | undefined, policy: string | undefined): string =>
  [
    '# Server',
    ...(version === undefined ? [] : [`redis_version:${version}`]),
    'redis_mode:standalone',
    '',
    '# Memory',
    'maxmemory:0',
    ...(policy === undefined ? [] : [`maxmemory_policy:${policy}`]),
  ].join('\r\n');

describe('PostgreSQL version', () => {
  it.each([
    ['15.20 (Debian 15.20-0+deb12u1)', 15],
    ['16.4', 16],
    ['17beta1', 17],
    ['14.13 (Ubuntu 14.13-0ubuntu0.22.04.1)', 14],
    ['9.6.24', 9],
    [' 18.0 ', 18],
  ])('reads the major version of %j', (version, major) => {
    expect(postgresMajorVersion(version)).toBe(major);
  });

  it('accepts the minimum major version and every later one', () => {
    const { minimumMajor } = SERVER_REQUIREMENTS.postgres;
    for (const version of [`${minimumMajor}.0`, `${minimumMajor}.20 (Debian)`, `${minimumMajor + 1}.4`, `${minimumMajor + 3}beta2`]) {
      expect(postgresVersionProblem(version)).toBeUndefined();
    }
  });

  it('refuses the major version just below the minimum, and older ones, naming the version and the fix', () => {
    const { minimumMajor } = SERVER_REQUIREMENTS.postgres;
    for (const version of [`${minimumMajor - 1}.13 (Ubuntu)`, '12.22', '9.6.24']) {
      expect(postgresVersionProblem(version)).toBe(
        `PostgreSQL ${version} is older than the gateway supports: upgrade the server to PostgreSQL ${minimumMajor} or later`,
      );
    }
  });

  it('refuses a version it cannot read', () => {
    expect(postgresVersionProblem('devel')).toMatch(/^PostgreSQL reports version "devel", which is not a version number/);
  });
});

describe('Redis server', () => {
  const { maxmemoryPolicy, minimumVersion } = SERVER_REQUIREMENTS.redis;

  it('reads INFO fields, skipping headings and blank lines, with CRLF line ends', () => {
    const fields = parseRedisInfo(redisInfo('7.0.15', 'noeviction'));
    expect(fields.get('redis_version')).toBe('7.0.15');
    expect(fields.get('maxmemory_policy')).toBe('noeviction');
    expect(fields.has('# Server')).toBe(false);
  });

  it.each(['7.0.0', '7.0.15', '7.4.1', '8.0.2', '10.0.0'])('accepts Redis %s with noeviction', (version) => {
    expect(redisServerProblems(redisInfo(version, maxmemoryPolicy))).toEqual([]);
  });

  it.each(['6.2.14', '6.0.20', '5.0.14', '2.8'])('refuses Redis %s, naming the minimum', (version) => {
    expect(redisServerProblems(redisInfo(version, maxmemoryPolicy))).toEqual([
      `Redis ${version} is older than the gateway supports: upgrade the server to Redis ${minimumVersion} or later`,
    ]);
  });

  it.each(['allkeys-lru', 'volatile-lru', 'allkeys-lfu', 'volatile-ttl', 'allkeys-random'])(
    'refuses maxmemory-policy %s, naming the setting and how to set it',
    (policy) => {
      const [problem, ...others] = redisServerProblems(redisInfo('7.0.15', policy));
      expect(others).toEqual([]);
      expect(problem).toMatch(new RegExp(`^Redis maxmemory-policy is ${policy}, and BullMQ needs noeviction`));
      expect(problem).toContain('set "maxmemory-policy noeviction" in redis.conf');
      expect(problem).toContain('CONFIG SET maxmemory-policy noeviction');
    },
  );

  it('refuses a server that reports neither a version nor a policy, with both problems', () => {
    const problems = redisServerProblems(redisInfo(undefined, undefined));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/no redis_version/);
    expect(problems[1]).toMatch(/^Redis maxmemory-policy is not reported by INFO memory/);
  });
});
