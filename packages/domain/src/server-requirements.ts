/**
 * What the gateway requires of the PostgreSQL and Redis servers it runs on, once: the apps check
 * them at boot and in `/readyz` (packages/http boot-checks), and docs/deployment.md states them.
 *
 * - PostgreSQL 15 or later: the only major version the tests and the images run (Debian 12's, and
 *   docker-compose's `postgres:15`); 14 and older are past their community support.
 * - Redis 7.0 or later: the oldest version tested here (7.0.15; compose runs 7.4). BullMQ refuses
 *   below 5.0 and recommends 6.2, and the ACL rules `gateway redis acl` makes use `resetchannels` (6.2).
 * - Redis `maxmemory-policy noeviction`: BullMQ's requirement. Under any other policy a Redis that
 *   fills up deletes keys, and a deleted job key is a payout or a callback that nobody runs until
 *   the reconciler finds it again; with noeviction a full Redis refuses writes instead, loudly.
 */
export const SERVER_REQUIREMENTS = {
  postgres: { minimumMajor: 15, tested: '15' },
  redis: { minimumVersion: '7.0.0', tested: '7.0 and 7.4', maxmemoryPolicy: 'noeviction' },
} as const;

/** A PostgreSQL `server_version` ("15.20 (Debian 15.20-0+deb12u1)", "16.4", "9.6.24", "17beta1"): its major version. */
export function postgresMajorVersion(serverVersion: string): number | undefined {
  const match = /^(\d+)/.exec(serverVersion.trim());
  // Before 10 a major version was two numbers (9.6): its first is enough, every 9.x is older than any supported.
  return match ? Number(match[1]) : undefined;
}

/** Why this PostgreSQL cannot run the gateway (its `SHOW server_version`), or undefined when it can. */
export function postgresVersionProblem(serverVersion: string): string | undefined {
  const { minimumMajor } = SERVER_REQUIREMENTS.postgres;
  const major = postgresMajorVersion(serverVersion);
  if (major === undefined)
    return `PostgreSQL reports version "${serverVersion}", which is not a version number; the gateway needs PostgreSQL ${minimumMajor} or later`;
  if (major < minimumMajor)
    return `PostgreSQL ${serverVersion.trim()} is older than the gateway supports: upgrade the server to PostgreSQL ${minimumMajor} or later`;
  return undefined;
}

/** The fields of Redis `INFO` text (`name:value` lines; `#` headings and blank lines skipped). */
export function parseRedisInfo(info: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of info.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (line.startsWith('#') || colon < 1) continue;
    fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return fields;
}

function versionParts(version: string): number[] | undefined {
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(version.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : undefined;
}

function olderThan(version: number[], minimum: number[]): boolean {
  for (let i = 0; i < minimum.length; i += 1) {
    const [have, need] = [version[i] ?? 0, minimum[i] ?? 0];
    if (have !== need) return have < need;
  }
  return false;
}

/**
 * Why this Redis cannot hold the gateway's queues, read from its `INFO server` and `INFO memory`
 * text (what every app's Redis user may ask; CONFIG is refused to them): each problem names the
 * setting and how to fix it. Empty when the server is fit.
 */
export function redisServerProblems(info: string): string[] {
  const { minimumVersion, maxmemoryPolicy } = SERVER_REQUIREMENTS.redis;
  const fields = parseRedisInfo(info);
  const problems: string[] = [];
  const version = fields.get('redis_version');
  const parts = version === undefined ? undefined : versionParts(version);
  if (parts === undefined) {
    problems.push(`Redis reports no redis_version in INFO server; the gateway needs Redis ${minimumVersion} or later`);
  } else if (olderThan(parts, versionParts(minimumVersion) ?? [])) {
    problems.push(`Redis ${version} is older than the gateway supports: upgrade the server to Redis ${minimumVersion} or later`);
  }
  const policy = fields.get('maxmemory_policy');
  if (policy !== maxmemoryPolicy) {
    problems.push(
      `Redis maxmemory-policy is ${policy ?? 'not reported by INFO memory'}, and BullMQ needs ${maxmemoryPolicy} (any other policy may ` +
        `delete queued jobs when Redis fills up): set "maxmemory-policy ${maxmemoryPolicy}" in redis.conf (or the managed ` +
        `Redis's parameter group), or run CONFIG SET maxmemory-policy ${maxmemoryPolicy} as an admin`,
    );
  }
  return problems;
}
