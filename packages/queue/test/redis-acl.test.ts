// Each app's Redis ACL user (src/redis-acl.ts) on a private redis-server: the queue apps' real
// BullMQ round trips work as their users, and another app's keys (the Transak partner token's
// among them) and the server's dangerous commands are refused with NOPERM.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import IORedis from 'ioredis';
import { startRedisServer, type RunningRedis, waitFor } from '@gateway/testkit';
import {
  applyRedisAcl,
  defaultRedisUserName,
  enqueueDeliveries,
  enqueueSettlements,
  enqueueStatusPolls,
  ensureLiveSettlementJob,
  hasQueueMarker,
  openCallbackQueue,
  openProviderStatusQueue,
  openSettlementQueue,
  pollStatusNow,
  redisAclFileLine,
  redisAclRules,
  redisCredentialsOf,
  redisUrlFor,
  REDIS_USERS,
  setQueueMarker,
  callbackWorkerDefinition,
  settlementWorkerDefinition,
  providerStatusWorkerDefinition,
  startQueueWorker,
  type CallbackJob,
  type RedisUser,
  type RedisUserCredentials,
  type SettlementJob,
} from '../src';
import { notingHandler } from './support/test-queue';

const prefix = `acl-${randomBytes(3).toString('hex')}`;
const tokenKey = `${prefix}:provider-tokens:transak:partner-access-token:live:0123456789abcdef`;
let server: RunningRedis;
const credentials = {} as Record<RedisUser, RedisUserCredentials>;
const settings = (user: RedisUser) => ({ url: redisUrlFor(server.url, credentials[user]), prefix });
const clients: IORedis[] = [];
const clientOf = (user: RedisUser): IORedis => {
  const client = new IORedis(settings(user).url, { maxRetriesPerRequest: 1 });
  clients.push(client);
  return client;
};

beforeAll(async () => {
  server = await startRedisServer();
  for (const user of REDIS_USERS) {
    credentials[user] = { user, name: defaultRedisUserName(prefix, user), password: randomBytes(18).toString('base64url') };
  }
  await applyRedisAcl(server.url, Object.values(credentials), prefix);
  // What payment-redirect's token store keeps: the key the others must never read.
  await clientOf('payment-redirect').set(tokenKey, '{"current":{"value":"partner-token"}}', 'PX', 60_000);
}, 20_000);

afterAll(async () => {
  for (const client of clients) client.disconnect();
  await server?.stop();
});

describe('the rules', () => {
  it('gives each user its own key areas under the prefix and no channel', () => {
    expect(redisAclRules('wallet-control', 'gw').filter((rule) => rule.startsWith('~'))).toEqual([
      '~gw:rate-limit:*',
      '~gw:rates:*',
      '~gw:payout-quota*',
      '~gw:new-wallets*',
    ]);
    expect(redisAclRules('chain-watcher', 'gw').filter((rule) => rule.startsWith('~'))).toEqual(['~gw:settlement:*']);
    for (const user of REDIS_USERS) {
      const rules = redisAclRules(user, 'gw');
      expect(rules).toContain('resetchannels');
      expect(rules.indexOf('-@all')).toBeLessThan(rules.findIndex((rule) => rule.startsWith('+')));
      expect(rules.some((rule) => rule.includes('provider-tokens'))).toBe(user === 'payment-redirect');
    }
  });

  it('puts the SHA-256 of the password in an aclfile line, never the password', () => {
    const line = redisAclFileLine({ user: 'callback-worker', name: 'gw-callback-worker', password: 'correct-horse-battery' }, 'gw');
    expect(line).toMatch(/^user gw-callback-worker on #[0-9a-f]{64} ~gw:callbacks:\* resetchannels -@all \+/);
    expect(line).not.toContain('correct-horse-battery');
  });

  it("takes each app's user from its REDIS_URL and refuses a URL without one (the default user)", () => {
    expect(redisCredentialsOf('chain-watcher', 'rediss://gw-chain-watcher:p%40ss-word-long-enough@redis.internal:6380')).toEqual({
      user: 'chain-watcher',
      name: 'gw-chain-watcher',
      password: 'p@ss-word-long-enough',
    });
    expect(() => redisCredentialsOf('chain-watcher', 'redis://:secret@redis.internal')).toThrow(/names no user/);
    expect(() => redisCredentialsOf('chain-watcher', 'redis://default:secret@redis.internal')).toThrow(/names no user/);
    expect(() => redisAclFileLine({ user: 'operator', name: 'has space', password: 'x'.repeat(16) }, 'gw')).toThrow();
    expect(() => redisAclFileLine({ user: 'operator', name: 'gw-operator', password: 'short' }, 'gw')).toThrow(/16/);
  });

  it('allows the queue users every command the installed BullMQ runs in its scripts', async () => {
    const commandsDir = join(dirname(require.resolve('bullmq/package.json')), 'dist', 'cjs', 'commands');
    const lua = [commandsDir, join(commandsDir, 'includes')]
      .flatMap((dir) =>
        readdirSync(dir)
          .filter((file) => file.endsWith('.lua'))
          .map((file) => readFileSync(join(dir, file), 'utf8')),
      )
      .join('\n');
    const words = [...new Set([...lua.matchAll(/["']([A-Z]{3,})["']/g)].map((match) => match[1]!.toLowerCase()))];
    const admin = new IORedis(server.url);
    clients.push(admin);
    // Of the upper-case words in the scripts, those the server knows as commands (not COUNT, WITHSCORES …).
    const infos = (await admin.call('COMMAND', 'INFO', ...words)) as unknown[];
    const commands = words.filter((_, index) => infos[index] !== null);
    expect(commands).toEqual(expect.arrayContaining(['zadd', 'hset', 'xadd', 'lpush', 'rpush', 'sscan', 'hscan']));
    for (const user of ['chain-watcher', 'settlement-worker', 'callback-worker', 'payment-redirect', 'operator'] as const) {
      const allowed = redisAclRules(user, prefix).filter((rule) => rule.startsWith('+'));
      expect(commands.filter((command) => !allowed.includes(`+${command}`))).toEqual([]);
    }
  });
});

/** Runs `work`, then closes these (a worker before its queue), whatever became of it. */
async function closingAfter(closables: Array<{ close(): Promise<void> }>, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } finally {
    for (const closable of closables) await closable.close();
  }
}

describe('each queue app, as its own user', () => {
  it('settlement: the chain watcher adds, the settlement worker runs, the operator re-queues', async () => {
    const queue = openSettlementQueue(settings('chain-watcher'));
    const done: string[] = [];
    const worker = startQueueWorker(settlementWorkerDefinition, {
      redis: settings('settlement-worker'),
      settings: { concurrency: 1, jobLockMs: 30_000 },
      handlers: { 'settle-deposit': notingHandler<SettlementJob>(done, (data) => data.depositId) },
    });
    await closingAfter([worker, queue], async () => {
      await enqueueSettlements(queue, ['41', '42']);
      await waitFor('both settlements', () => (done.length === 2 ? done : undefined));
      expect(done.sort()).toEqual(['41', '42']);
      await setQueueMarker(queue, 'acl-test');
      expect(await hasQueueMarker(queue, 'acl-test')).toBe(true);
      const operatorQueue = openSettlementQueue(settings('operator'));
      expect(await ensureLiveSettlementJob(operatorQueue, '41')).toBe('enqueued');
      await operatorQueue.close();
      await waitFor('the re-queued settlement', () => (done.length === 3 ? done : undefined));
    });
  });

  it('callbacks: the settlement worker adds, the callback worker delivers', async () => {
    const queue = openCallbackQueue(settings('settlement-worker'));
    const delivered: string[] = [];
    const worker = startQueueWorker(callbackWorkerDefinition, {
      redis: settings('callback-worker'),
      settings: { concurrency: 2, lockDurationMs: 5_000 },
      handlers: { deliver: notingHandler<CallbackJob>(delivered, (data) => data.deliveryId) },
    });
    await closingAfter([worker, queue], async () => {
      await enqueueDeliveries(queue, ['6f1c0a52-0000-4000-8000-000000000001']);
      await waitFor('the delivery', () => (delivered.length === 1 ? delivered : undefined));
    });
  });

  it('provider status: payment-redirect adds, delays, promotes and runs its own look-ups', async () => {
    const queue = openProviderStatusQueue(settings('payment-redirect'));
    const asked: number[] = [];
    const worker = startQueueWorker(providerStatusWorkerDefinition, {
      redis: settings('payment-redirect'),
      settings: { concurrency: 1 },
      handlers: {
        'ask-provider': async () => {
          asked.push(Date.now());
          // First look-up: again in a minute (moveToDelayed), promoted below; then done.
          return asked.length === 1 ? { againAt: new Date(Date.now() + 60_000) } : 'done';
        },
      },
    });
    const paymentId = '6f1c0a52-0000-4000-8000-000000000002';
    await closingAfter([worker, queue], async () => {
      await enqueueStatusPolls(queue, [paymentId]);
      await waitFor('the first look-up', () => (asked.length === 1 ? asked : undefined));
      await waitFor('the look-up delayed', async () => (await queue.getJobState(paymentId)) === 'delayed', 5_000, 20);
      expect(await queue.getJobState(paymentId)).toBe('delayed');
      await pollStatusNow(queue, paymentId);
      await waitFor('the promoted look-up', () => (asked.length === 2 ? asked : undefined));
    });
  });
});

describe("what the apps' boot check reads", () => {
  it("lets every user read the server's version and maxmemory-policy through INFO, and nothing through CONFIG", async () => {
    for (const user of REDIS_USERS) {
      const client = clientOf(user);
      expect(await client.info('server')).toMatch(/^redis_version:\d+\.\d+/m);
      expect(await client.info('memory')).toMatch(/^maxmemory_policy:noeviction\r?$/m);
      await expect(client.call('CONFIG', 'GET', 'maxmemory-policy')).rejects.toThrow(/NOPERM/);
    }
  });
});

describe('what each user is refused', () => {
  it("no user but payment-redirect's reads, writes or deletes the Transak token's key", async () => {
    expect(await clientOf('payment-redirect').get(tokenKey)).toContain('partner-token');
    for (const user of REDIS_USERS.filter((user) => user !== 'payment-redirect')) {
      const client = clientOf(user);
      await expect(client.get(tokenKey)).rejects.toThrow(/NOPERM/);
      await expect(client.set(tokenKey, 'x')).rejects.toThrow(/NOPERM/);
      await expect(client.del(tokenKey)).rejects.toThrow(/NOPERM/);
      // Nor through a script: the commands a script runs are checked against the caller too.
      await expect(client.eval("return redis.call('GET', KEYS[1])", 1, tokenKey)).rejects.toThrow(/NOPERM|No permissions/);
    }
  });

  it("a queue app cannot touch another app's queue, and an API app no queue it does not use", async () => {
    const foreign = openCallbackQueue(settings('chain-watcher'));
    foreign.on('error', () => undefined);
    await expect(enqueueDeliveries(foreign, ['6f1c0a52-0000-4000-8000-000000000003'])).rejects.toThrow(/NOPERM|No permissions/);
    await foreign.close();
    await expect(clientOf('callback-worker').hgetall(`${prefix}:settlement:deposit-41`)).rejects.toThrow(/NOPERM/);
    await expect(clientOf('wallet-control').llen(`${prefix}:callbacks:wait`)).rejects.toThrow(/NOPERM/);
    await expect(clientOf('payment-redirect').get(`${prefix}:payout-quota:0xabc:1`)).rejects.toThrow(/NOPERM/);
  });

  it("refuses every user the server's commands and the commands that list other keys", async () => {
    for (const user of REDIS_USERS) {
      const client = clientOf(user);
      for (const command of [
        ['FLUSHALL'],
        ['FLUSHDB'],
        ['KEYS', '*'],
        ['SCAN', '0'],
        ['CONFIG', 'GET', '*'],
        ['ACL', 'LIST'],
        ['CLIENT', 'LIST'],
        ['FUNCTION', 'FLUSH'],
        ['PUBLISH', 'c', 'm'],
      ]) {
        await expect(client.call(command[0]!, ...command.slice(1))).rejects.toThrow(/NOPERM/);
      }
    }
  });

  it('an unauthenticated connection of an app is the default user, left as the deployment set it', async () => {
    // The private server's default user is untouched by applyRedisAcl: a deployment turns it off itself.
    const admin = new IORedis(server.url);
    clients.push(admin);
    expect(String(await admin.call('ACL', 'WHOAMI'))).toBe('default');
    expect(await admin.get(tokenKey)).toContain('partner-token');
  });
});
