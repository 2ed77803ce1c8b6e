import type { ConnectionOptions } from 'bullmq';

export interface RedisSettings {
  url: string;
  /** Key prefix, so tests and environments sharing one Redis never see each other's jobs. */
  prefix: string;
}

/**
 * Connection options rather than ioredis instances: BullMQ then owns and closes its connections
 * (TOOLCHAIN trap 6). Workers need `maxRetriesPerRequest: null` to block on Redis. A `rediss://`
 * URL connects with TLS (certificate checked against the host name, Node's default trust store).
 */
export function redisConnection(settings: RedisSettings, role: 'producer' | 'worker'): ConnectionOptions {
  const url = new URL(settings.url);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    username: url.username || undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    maxRetriesPerRequest: role === 'worker' ? null : 3,
    enableOfflineQueue: role === 'worker',
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}
