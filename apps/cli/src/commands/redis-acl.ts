import { Type } from '@sinclair/typebox';
import { loadConfig, redisSettings } from '@gateway/config';
import {
  applyRedisAcl,
  redisAclFileLine,
  redisCredentialsOf,
  REDIS_USERS,
  type RedisUser,
  type RedisUserCredentials,
} from '@gateway/queue';
import { parseCommandArgs, toJson, UsageError, type CliIo } from '../command-kit';

/** `WALLET_CONTROL_REDIS_URL` …: the REDIS_URL each app is given, whose user and password the ACL is made for. */
export const appRedisUrlSetting = (user: RedisUser): string => `${user.toUpperCase().replaceAll('-', '_')}_REDIS_URL`;

const url = (description: string) => Type.String({ pattern: '^rediss?://', description });
export const redisAclSettings = Type.Object({
  ...redisSettings,
  ...Object.fromEntries(
    REDIS_USERS.map((user) => [
      appRedisUrlSetting(user),
      user === 'operator'
        ? Type.Optional(url("the operator CLI's REDIS_URL (gateway queues, resends): its three queues only"))
        : url(`the REDIS_URL ${user} is given: redis://<user>:<password>@host`),
    ]),
  ),
});

/**
 * `gateway redis acl [--apply]`: each app's Redis ACL user, its name and password taken from the
 * REDIS_URL that app is given (<APP>_REDIS_URL or its _FILE), limited to its keys under REDIS_PREFIX
 * and its commands (packages/queue redis-acl.ts). Prints an aclfile (the passwords as SHA-256), or
 * with --apply makes the users on the Redis at REDIS_URL, which must be an admin's (ACL SETUSER).
 */
export async function redisAclCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { apply: { type: 'boolean' } });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const raw = loadConfig(redisAclSettings, io.env) as Record<string, string | undefined> & { REDIS_URL: string; REDIS_PREFIX: string };
  const users: RedisUserCredentials[] = [];
  for (const user of REDIS_USERS) {
    const given = raw[appRedisUrlSetting(user)];
    if (given !== undefined) users.push(credentialsOf(user, given));
  }
  const names = users.map((user) => user.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) throw new UsageError(`two apps share the Redis user ${twice}: give each its own`);
  if (values.apply) {
    await applyRedisAcl(raw.REDIS_URL, users, raw.REDIS_PREFIX);
    io.out(
      values.json
        ? toJson({ prefix: raw.REDIS_PREFIX, applied: names })
        : `Redis users made for prefix ${raw.REDIS_PREFIX}: ${names.join(', ')}`,
    );
    return 0;
  }
  const lines = users.map((user) => redisAclFileLine(user, raw.REDIS_PREFIX));
  io.out(values.json ? toJson({ prefix: raw.REDIS_PREFIX, aclfile: lines }) : lines.join('\n'));
  return 0;
}

function credentialsOf(user: RedisUser, redisUrl: string): RedisUserCredentials {
  try {
    return redisCredentialsOf(user, redisUrl);
  } catch (error) {
    throw new UsageError(`${appRedisUrlSetting(user)}: ${(error as Error).message}`);
  }
}
