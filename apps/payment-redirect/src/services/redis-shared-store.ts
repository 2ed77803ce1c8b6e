import type IORedis from 'ioredis';
import type { SharedKeyValue } from '@gateway/providers';

// Deletes the key only while it holds the caller's value: a lock holder never frees a lock that
// expired and was taken by another replica meanwhile.
const DELETE_IF_EQUALS = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/** The shared store of provider tokens on the app's Redis, under `<prefix>:`. */
export function redisSharedStore(redis: IORedis, prefix: string): SharedKeyValue {
  const key = (name: string) => `${prefix}:${name}`;
  return {
    get: (name) => redis.get(key(name)),
    async set(name, value, ttlMs, options) {
      const ttl = Math.max(1, Math.ceil(ttlMs));
      const answer = options?.onlyIfAbsent
        ? await redis.set(key(name), value, 'PX', ttl, 'NX')
        : await redis.set(key(name), value, 'PX', ttl);
      return answer === 'OK';
    },
    async deleteIfEquals(name, expected) {
      return (await redis.eval(DELETE_IF_EQUALS, 1, key(name), expected)) === 1;
    },
  };
}
