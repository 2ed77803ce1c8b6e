import { Queue, type Job } from 'bullmq';
import { produceWithin, QUEUE_NAMES, redisConnection } from '@gateway/queue';
import { parseCommandArgs, toJson, UsageError, type CliIo } from '../command-kit';
import { redisFromEnv } from '../redis';

// Every state BullMQ keeps a job in (settlement keeps finished jobs a day, failed ones a week); the oldest
// is looked for among the live ones.
const STATES = ['waiting', 'prioritized', 'delayed', 'active', 'waiting-children', 'failed', 'completed'] as const;
const LIVE = ['waiting', 'prioritized', 'delayed', 'active'] as const;

interface OldestJob {
  id: string | undefined;
  name: string;
  state: (typeof LIVE)[number];
  addedAt: string;
  ageSeconds: number;
  attemptsMade: number;
  data: unknown;
}

interface QueueReport {
  queue: string;
  counts: Record<(typeof STATES)[number], number>;
  oldest: OldestJob | null;
}

/** `gateway queues`: each queue's jobs by state and its oldest live job, through BullMQ's own API (REDIS_URL, REDIS_PREFIX). */
export async function queuesCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {});
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const redis = redisFromEnv(io.env);
  const reports: QueueReport[] = [];
  for (const name of Object.values(QUEUE_NAMES)) {
    const queue = new Queue(name, { connection: redisConnection(redis, 'producer'), prefix: redis.prefix });
    reports.push(await produceWithin(queue, (open) => report(open, Date.now())));
  }
  if (values.json) {
    io.out(toJson({ prefix: redis.prefix, queues: reports }));
    return 0;
  }
  for (const { queue, counts, oldest } of reports) {
    const depth = STATES.filter((state) => counts[state] > 0).map((state) => `${state} ${counts[state]}`);
    io.out(`${queue.padEnd(16)} ${depth.length > 0 ? depth.join(', ') : 'empty'}`);
    if (oldest) {
      io.out(
        `${''.padEnd(16)} oldest: job ${oldest.id} (${oldest.state}, added ${oldest.addedAt}, ${oldest.ageSeconds} s ago) ` +
          `${JSON.stringify(oldest.data)}`,
      );
    }
  }
  return 0;
}

async function report(queue: Queue, now: number): Promise<QueueReport> {
  const counts = (await queue.getJobCounts(...STATES)) as QueueReport['counts'];
  // The first job of each live state in the order BullMQ keeps it (oldest first), the oldest of those by its timestamp.
  let oldest: { job: Job; state: (typeof LIVE)[number] } | undefined;
  for (const state of LIVE) {
    if (counts[state] === 0) continue;
    const [job] = await queue.getJobs([state], 0, 0, true);
    if (job && (!oldest || job.timestamp < oldest.job.timestamp)) oldest = { job, state };
  }
  return {
    queue: queue.name,
    counts,
    oldest: oldest
      ? {
          id: oldest.job.id,
          name: oldest.job.name,
          state: oldest.state,
          addedAt: new Date(oldest.job.timestamp).toISOString(),
          ageSeconds: Math.max(0, Math.round((now - oldest.job.timestamp) / 1000)),
          attemptsMade: oldest.job.attemptsMade,
          data: oldest.job.data,
        }
      : null,
  };
}
