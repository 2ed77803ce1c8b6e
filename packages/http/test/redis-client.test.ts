import { createApiRedis } from '../src/redis-client';

describe('createApiRedis', () => {
  it('uses TLS for rediss:// and not for redis:// (ioredis reads the scheme)', () => {
    const secure = createApiRedis('rediss://user:secret@redis.example.invalid:6380/2');
    const plain = createApiRedis('redis://redis.example.invalid:6379');
    for (const client of [secure, plain]) client.on('error', () => undefined);
    try {
      expect(secure.options).toMatchObject({ host: 'redis.example.invalid', port: 6380, db: 2, username: 'user', password: 'secret' });
      expect(secure.options.tls).toBeTruthy();
      expect(plain.options.tls).toBeFalsy();
      // Fails fast while Redis is away instead of queueing (an API request never waits on Redis).
      expect(secure.options).toMatchObject({ enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    } finally {
      secure.disconnect();
      plain.disconnect();
    }
  });
});
