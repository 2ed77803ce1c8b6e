import { UnrecoverableError } from 'bullmq';
import {
  enqueueSettlements,
  ensureLiveSettlementJob,
  openSettlementQueue,
  SETTLEMENT_JOB_NAME,
  SETTLEMENT_RETRY_MAX_DELAY_MS,
  settlementJobId,
  settlementWorkerDefinition,
  startQueueWorker,
  type SettlementQueue,
} from '../src';
import { useTestQueue } from './support/test-queue';

const testQueue = useTestQueue(openSettlementQueue);
let queue: SettlementQueue;

beforeAll(() => {
  queue = testQueue.queue();
});

/** Runs every waiting job once with `outcome`, then stops. */
async function runJobs(outcome: 'complete' | 'fail'): Promise<void> {
  const worker = startQueueWorker(settlementWorkerDefinition, {
    redis: testQueue.redis,
    settings: { concurrency: 1, jobLockMs: 30_000 },
    handlers: {
      [SETTLEMENT_JOB_NAME]: async () => {
        if (outcome === 'fail') throw new UnrecoverableError('the deposit is gone');
        return 'done';
      },
    },
  });
  await new Promise<void>((resolve) => worker.once('drained', resolve));
  await worker.close();
}

describe('the settlement queue, defined once', () => {
  it('adds one job per deposit, with the deposit as its id and the settlement options; adding it again changes nothing', async () => {
    await enqueueSettlements(queue, ['11', '12']);
    await enqueueSettlements(queue, ['11']);
    const job = await queue.getJob(settlementJobId('11'));
    expect(job).toMatchObject({ name: SETTLEMENT_JOB_NAME, data: { depositId: '11' }, opts: expect.objectContaining({ attempts: 1_000 }) });
    expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 2 });
    await queue.obliterate({ force: true });
  });

  it('gives a deposit a live job whatever became of its last one', async () => {
    // Redis lost it: added.
    expect(await ensureLiveSettlementJob(queue, '21')).toBe('enqueued');
    // Waiting: left alone.
    expect(await ensureLiveSettlementJob(queue, '21')).toBe('live');
    // Completed (a deposit re-planned after it needed attention, a held deposit swept): added again.
    await runJobs('complete');
    expect(await queue.getJobState(settlementJobId('21'))).toBe('completed');
    expect(await ensureLiveSettlementJob(queue, '21')).toBe('enqueued');
    expect(await queue.getJobState(settlementJobId('21'))).toBe('waiting');
    // Failed: retried.
    await runJobs('fail');
    expect(await queue.getJobState(settlementJobId('21'))).toBe('failed');
    expect(await ensureLiveSettlementJob(queue, '21')).toBe('enqueued');
    expect(await queue.getJobState(settlementJobId('21'))).toBe('waiting');
    await queue.obliterate({ force: true });
  });

  it('promotes a job delayed past the retry schedule, and leaves one delayed within it', async () => {
    await queue.add(
      SETTLEMENT_JOB_NAME,
      { depositId: '31' },
      { jobId: settlementJobId('31'), delay: SETTLEMENT_RETRY_MAX_DELAY_MS + 60_000 },
    );
    await queue.add(SETTLEMENT_JOB_NAME, { depositId: '32' }, { jobId: settlementJobId('32'), delay: 1_000 });
    expect(await ensureLiveSettlementJob(queue, '31')).toBe('promoted');
    expect(await queue.getJobState(settlementJobId('31'))).toBe('waiting');
    expect(await ensureLiveSettlementJob(queue, '32')).toBe('live');
    expect(await queue.getJobState(settlementJobId('32'))).toBe('delayed');
    await queue.obliterate({ force: true });
  });
});
