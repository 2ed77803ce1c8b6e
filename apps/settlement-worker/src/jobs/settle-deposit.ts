import { UnrecoverableError } from 'bullmq';
import { settlementRunsAgain, type SettlementOutcome } from '@gateway/domain';
import type { JobHandler, SettlementJob } from '@gateway/queue';
import type { SettlementMetrics } from '../metrics';
import { DepositNotFound, type SettlementService } from '../services/settlement-service';

export interface SettleDepositDeps {
  service: SettlementService;
  metrics: SettlementMetrics;
  /** A job whose deposit still owes work (payout in flight, busy elsewhere, not final) runs again after this long. */
  pollIntervalMs: number;
}

/**
 * The settlement queue's job: one run of SettlementService.settle for the job's deposit, timed and
 * counted by its outcome. An outcome that runs again has the job run again after the poll
 * interval, which is not a failure (BullMQ's attemptsMade and back-off are for failures only); a
 * deposit that does not exist fails the job for good; any other error fails the run, for the
 * queue's back-off.
 */
export function settleDepositJob({ service, metrics, pollIntervalMs }: SettleDepositDeps): JobHandler<SettlementJob> {
  return async (job) => {
    const stopTimer = metrics.jobRunDuration.startTimer();
    let outcome: SettlementOutcome = 'error';
    try {
      outcome = await service.settle(job.data.depositId);
    } catch (error) {
      if (error instanceof DepositNotFound) throw new UnrecoverableError(error.message);
      throw error;
    } finally {
      stopTimer({ outcome });
      metrics.jobRuns.inc({ outcome });
    }
    return settlementRunsAgain(outcome) ? { againAt: new Date(Date.now() + pollIntervalMs) } : 'done';
  };
}
