import { Type } from '@sinclair/typebox';
import { loadConfig, redisSettings } from '@gateway/config';
import type { RedisSettings } from '@gateway/queue';

const redisCommandSettings = Type.Object({ ...redisSettings });

/** REDIS_URL and REDIS_PREFIX, as the apps read them. */
export function redisFromEnv(env: NodeJS.ProcessEnv): RedisSettings {
  const raw = loadConfig(redisCommandSettings, env);
  return { url: raw.REDIS_URL, prefix: raw.REDIS_PREFIX };
}
