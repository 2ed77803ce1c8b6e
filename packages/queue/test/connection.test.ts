import { createServer, type Server, type Socket } from 'node:net';
import IORedis, { type RedisOptions } from 'ioredis';
import { sleep } from '@gateway/testkit';
import { redisConnection } from '../src/connection';

describe('redisConnection', () => {
  it('parses host, port, credentials and database', () => {
    expect(redisConnection({ url: 'redis://user:p%40ss@redis.internal:6380/3', prefix: 'gw' }, 'worker')).toMatchObject({
      host: 'redis.internal',
      port: 6380,
      username: 'user',
      password: 'p@ss',
      db: 3,
      maxRetriesPerRequest: null,
    });
  });

  it('uses TLS for rediss:// and not for redis://', () => {
    for (const role of ['producer', 'worker'] as const) {
      expect(redisConnection({ url: 'rediss://redis.example.com:6380', prefix: 'gw' }, role)).toMatchObject({
        host: 'redis.example.com',
        tls: {},
      });
      expect(redisConnection({ url: 'redis://redis.example.com:6380', prefix: 'gw' }, role)).not.toHaveProperty('tls');
    }
  });

  describe('on the wire', () => {
    let server: Server;
    let port: number;
    const firstBytes: Buffer[] = [];

    beforeAll(async () => {
      server = createServer((socket: Socket) => {
        socket.once('data', (chunk) => {
          firstBytes.push(chunk);
          socket.destroy();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    async function firstByteSent(url: string): Promise<number | undefined> {
      firstBytes.length = 0;
      const options = redisConnection({ url, prefix: 'gw' }, 'producer') as RedisOptions;
      const client = new IORedis({ ...options, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
      client.on('error', () => undefined);
      await client.connect().catch(() => undefined);
      for (let i = 0; i < 100 && firstBytes.length === 0; i += 1) await sleep(20);
      client.disconnect();
      return firstBytes[0]?.[0];
    }

    it('opens rediss:// with a TLS handshake (a ClientHello record, 0x16) and redis:// in plain RESP', async () => {
      expect(await firstByteSent(`rediss://127.0.0.1:${port}`)).toBe(0x16);
      expect(String.fromCharCode((await firstByteSent(`redis://127.0.0.1:${port}`)) ?? 0)).toBe('*');
    });
  });
});
