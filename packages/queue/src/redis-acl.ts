import { createHash } from 'node:crypto';
import IORedis from 'ioredis';
import { QUEUE_NAMES } from './queue-names';

/**
 * Each app's rights on the Redis every app shares, in one place: an app connects as a Redis ACL
 * user of its own (REDIS_URL with its user name and password), limited to the key areas its code
 * builds and the commands it runs, as each app has a PostgreSQL role of its own. The Transak
 * partner access token (a bearer credential that also keys its webhooks) is then readable by
 * payment-redirect's user only. `gateway redis acl` prints these rules (or applies them); the
 * local stack, both compose files and Kubernetes create the users with it.
 */

/** Who connects to Redis: the five apps and the operator's CLI (`gateway queues`, resends). */
export const REDIS_USERS = [
  'wallet-control',
  'payment-redirect',
  'chain-watcher',
  'settlement-worker',
  'callback-worker',
  'operator',
] as const;
export type RedisUser = (typeof REDIS_USERS)[number];

/**
 * The key areas under REDIS_PREFIX, each named after the code that builds its keys. A key pattern
 * is `<prefix>:<area>*`: an area ending in `:` is that namespace only; one without also covers
 * its longer siblings (`new-wallets` covers `new-wallets:<minute>` and `new-wallets-<kind>:…`).
 */
export const REDIS_AREAS = {
  /** packages/http rate-limit.ts: `<prefix>:rate-limit:…`, shared by both API hosts on purpose. */
  rateLimits: 'rate-limit:',
  /** packages/rates cached-rate-reader.ts: `<prefix>:rates:<source>` and its `:lock`, shared by both API hosts. */
  rates: 'rates:',
  /** packages/providers shared-token-store.ts through payment-redirect's redis-shared-store.ts. */
  providerTokens: 'provider-tokens:',
  /** payment-redirect quote-service.ts: providers' quotes per currency and amount band, and their `:lock`. */
  providerQuotes: 'provider-quotes:',
  /** payment-redirect provider-circuit-breaker.ts: each provider's circuit status and its window's calls and failures. */
  providerCircuits: 'provider-circuit:',
  /** wallet-control payout-quota.ts: per payout address, and whatever quota keys follow `payout-quota`. */
  payoutQuota: 'payout-quota',
  /** wallet-control payout-quota.ts: the gateway's ceiling per minute, and per-client variants `new-wallets-…`. */
  newWallets: 'new-wallets',
  /** BullMQ keys every queue's name (`<prefix>:<queue>:…`), the queue markers included. */
  settlementQueue: `${QUEUE_NAMES.settlement}:`,
  callbacksQueue: `${QUEUE_NAMES.callbacks}:`,
  providerStatusQueue: `${QUEUE_NAMES.providerStatus}:`,
  recoveryEmailsQueue: `${QUEUE_NAMES.recoveryEmails}:`,
} as const;
type RedisArea = keyof typeof REDIS_AREAS;

// ioredis's ready check, BullMQ's version check and the apps' server check (redis_version and
// maxmemory_policy, SERVER_REQUIREMENTS in @gateway/domain) ask INFO (server facts, no key); BullMQ names
// its connections. QUIT closes them; SELECT only when REDIS_URL names a database.
const CONNECTION = ['ping', 'info', 'client|setname', 'client|getname', 'select', 'quit'];
// Scripts: ioredis sends EVALSHA, EVAL when the script is not cached, and loads a pipeline's
// scripts with SCRIPT EXISTS / LOAD. Every command a script runs is checked against the user too.
const SCRIPTS = ['eval', 'evalsha', 'script|load', 'script|exists'];
// The API apps' own keys: rate-limit counters (INCR, PEXPIRE, PTTL in a script), the cached rates,
// provider tokens and quotes (GET, SET NX PX, a GET-then-DEL script), the payout quota (INCRBY, PEXPIREAT, MGET).
const API_KEYS = ['get', 'set', 'mget', 'del', 'incr', 'incrby', 'pexpire', 'pexpireat', 'pttl'];
// BullMQ: the commands its Lua scripts run (dist/*/commands, checked by packages/queue's ACL test
// against the installed BullMQ) and those it sends itself (the worker's blocking BZPOPMIN, MULTI).
// biome-ignore format: grouped by data type, one line each, rather than one command a line
const BULLMQ = [
  'del', 'exists', 'get', 'set', 'incr', 'incrby', 'unlink', 'rename', 'type', 'time', 'persist', 'pexpire', 'pexpireat', 'pttl',
  'hdel', 'hexists', 'hget', 'hgetall', 'hincrby', 'hlen', 'hmget', 'hmset', 'hset', 'hscan',
  'lindex', 'llen', 'lpop', 'lpos', 'lpush', 'lrange', 'lrem', 'lset', 'ltrim', 'rpop', 'rpoplpush', 'rpush',
  'sadd', 'scard', 'sismember', 'smembers', 'srem', 'sscan',
  'xadd', 'xdel', 'xlen', 'xrange', 'xread', 'xtrim',
  'zadd', 'zcard', 'zcount', 'zlexcount', 'zpopmin', 'zrange', 'zrangebylex', 'zrangebyscore', 'zrem',
  'zremrangebyrank', 'zremrangebyscore', 'zrevrange', 'zrevrangebyscore', 'zscore',
  'bzpopmin', 'multi', 'exec', 'discard',
];

interface Rights {
  areas: RedisArea[];
  commands: string[];
}

const QUEUE_USER = [...CONNECTION, ...SCRIPTS, ...BULLMQ];
const RIGHTS: Record<RedisUser, Rights> = {
  'wallet-control': { areas: ['rateLimits', 'rates', 'payoutQuota', 'newWallets'], commands: [...CONNECTION, ...SCRIPTS, ...API_KEYS] },
  'payment-redirect': {
    areas: ['rateLimits', 'rates', 'providerTokens', 'providerQuotes', 'providerCircuits', 'providerStatusQueue', 'recoveryEmailsQueue'],
    commands: [...CONNECTION, ...SCRIPTS, ...API_KEYS, ...BULLMQ],
  },
  'chain-watcher': { areas: ['settlementQueue'], commands: QUEUE_USER },
  'settlement-worker': { areas: ['settlementQueue', 'callbacksQueue'], commands: QUEUE_USER },
  'callback-worker': { areas: ['callbacksQueue'], commands: QUEUE_USER },
  operator: { areas: ['settlementQueue', 'callbacksQueue', 'providerStatusQueue', 'recoveryEmailsQueue'], commands: QUEUE_USER },
};

/** The key patterns of a user: `~<prefix>:<area>*` for each area it owns. */
export function redisKeyPatterns(user: RedisUser, prefix: string): string[] {
  assertPrefix(prefix);
  return RIGHTS[user].areas.map((area) => `~${prefix}:${REDIS_AREAS[area]}*`);
}

/**
 * A user's rules after `reset` (no key, no channel, no command): its key patterns and its
 * commands, one by one. No pub/sub channel: none of the apps publishes or subscribes.
 */
export function redisAclRules(user: RedisUser, prefix: string): string[] {
  return [...redisKeyPatterns(user, prefix), 'resetchannels', '-@all', ...[...new Set(RIGHTS[user].commands)].sort().map((c) => `+${c}`)];
}

/** `<prefix>-<app>`: ACL users belong to the whole Redis server, so two gateways sharing one keep theirs apart. */
export function defaultRedisUserName(prefix: string, user: RedisUser): string {
  assertPrefix(prefix);
  return `${prefix}-${user}`;
}

export interface RedisUserCredentials {
  user: RedisUser;
  /** The ACL user's name: never `default`, the user every unauthenticated connection is. */
  name: string;
  password: string;
}

/** SHA-256 of the password, as ACL rules take it (`#<hex>`): an aclfile then holds no password. */
function passwordRule(password: string): string {
  assertPassword(password);
  return `#${createHash('sha256').update(password).digest('hex')}`;
}

function assertPassword(password: string): void {
  if (password.length < 16) throw new Error('a Redis ACL password needs at least 16 characters');
}

function assertName(name: string): void {
  if (name === 'default' || !/^[A-Za-z0-9:._-]{1,128}$/.test(name)) {
    throw new Error(`Redis user "${name}": letters, digits and : . _ - only, and never "default"`);
  }
}

function assertPrefix(prefix: string): void {
  if (!/^[A-Za-z0-9:_-]{1,64}$/.test(prefix)) throw new Error(`invalid REDIS_PREFIX "${prefix}"`);
}

/** One aclfile line (`user <name> on #<sha256> <rules>`), for a Redis started with `aclfile`. */
export function redisAclFileLine(credentials: RedisUserCredentials, prefix: string): string {
  assertName(credentials.name);
  return ['user', credentials.name, 'on', passwordRule(credentials.password), ...redisAclRules(credentials.user, prefix)].join(' ');
}

/** The arguments of `ACL SETUSER` that make the user exactly this (reset first), for a running Redis. */
export function redisAclSetUserArgs(credentials: RedisUserCredentials, prefix: string): string[] {
  assertName(credentials.name);
  return ['SETUSER', credentials.name, 'reset', 'on', passwordRule(credentials.password), ...redisAclRules(credentials.user, prefix)];
}

/** The URL an app connects with: `base`'s host, port, database and TLS, this user's name and password. */
export function redisUrlFor(base: string, credentials: Pick<RedisUserCredentials, 'name' | 'password'>): string {
  const url = new URL(base);
  url.username = encodeURIComponent(credentials.name);
  url.password = encodeURIComponent(credentials.password);
  return url.toString();
}

/** The user name and password of an app's REDIS_URL; an error when it has none (the default user). */
export function redisCredentialsOf(user: RedisUser, redisUrl: string): RedisUserCredentials {
  const url = new URL(redisUrl);
  const name = decodeURIComponent(url.username);
  if (name === '' || name === 'default') throw new Error(`the ${user} Redis URL names no user of its own (redis://<user>:<password>@host)`);
  const password = decodeURIComponent(url.password);
  assertPassword(password);
  assertName(name);
  return { user, name, password };
}

/**
 * Creates (or redefines) these users on the Redis at `adminUrl` with ACL SETUSER, as a user that
 * may (the deployment's admin). Every other user, the default one included, is left as it is.
 */
export async function applyRedisAcl(adminUrl: string, users: readonly RedisUserCredentials[], prefix: string): Promise<void> {
  await withAdmin(adminUrl, async (admin) => {
    for (const credentials of users) await admin.call('ACL', ...redisAclSetUserArgs(credentials, prefix));
  });
}

/** Deletes these users (a local stack's, when it stops); users that do not exist are no error. */
export async function deleteRedisUsers(adminUrl: string, names: readonly string[]): Promise<void> {
  if (names.length > 0) await withAdmin(adminUrl, (admin) => admin.call('ACL', 'DELUSER', ...names));
}

async function withAdmin(adminUrl: string, work: (admin: IORedis) => Promise<unknown>): Promise<void> {
  const admin = new IORedis(adminUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5_000, retryStrategy: () => null });
  admin.on('error', () => undefined);
  try {
    await admin.connect();
    await work(admin);
  } finally {
    admin.disconnect();
  }
}
