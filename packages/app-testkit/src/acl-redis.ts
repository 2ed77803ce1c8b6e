import { randomBytes } from 'node:crypto';
import IORedis from 'ioredis';
import { applyRedisAcl, defaultRedisUserName, redisUrlFor, REDIS_USERS, type RedisUser } from '@gateway/queue';
import { startRedisServer, type RunningRedis, type TestRedis } from '@gateway/testkit';

export interface AclRedis {
  server: RunningRedis;
  /** The REDIS_PREFIX the users were made for. */
  prefix: string;
  /** The REDIS_URL of an app: its own user and password on this server. */
  urlOf(user: RedisUser): string;
  /** A connection as that user, as an API app makes it; closed by stop(). */
  connect(user: RedisUser): IORedis;
  /** What an app fixture's build takes as its Redis: a connection as that user, under the prefix. */
  testRedisOf(user: RedisUser): TestRedis;
  stop(): Promise<void>;
}

/**
 * A private redis-server with each app's ACL user (packages/queue redis-acl.ts) for `prefix`: the
 * shared Redis's users are never changed by a test. The default user stays for the test's own look.
 */
export async function startAclRedis(label: string): Promise<AclRedis> {
  const server = await startRedisServer();
  const prefix = `${label}-${randomBytes(3).toString('hex')}`;
  const urls = new Map<RedisUser, string>();
  const credentials = REDIS_USERS.map((user) => ({
    user,
    name: defaultRedisUserName(prefix, user),
    password: randomBytes(18).toString('base64url'),
  }));
  for (const credential of credentials) urls.set(credential.user, redisUrlFor(server.url, credential));
  await applyRedisAcl(server.url, credentials, prefix);
  const clients: IORedis[] = [];
  const connect = (user: RedisUser) => {
    const client = new IORedis(urls.get(user)!, { maxRetriesPerRequest: 1, enableAutoPipelining: true });
    clients.push(client);
    return client;
  };
  return {
    server,
    prefix,
    urlOf: (user) => urls.get(user)!,
    connect,
    testRedisOf: (user) => ({ redis: connect(user), url: urls.get(user)!, prefix, close: async () => undefined }),
    async stop() {
      for (const client of clients) client.disconnect();
      await server.stop();
    },
  };
}
