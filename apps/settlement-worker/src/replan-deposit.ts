// Operator command, run with the settlement worker's environment:
//   pnpm --filter @gateway/settlement-worker replan --list
//       the deposits waiting for a person (needs_attention, or forwarded with a fee or affiliate
//       leg that needs attention), each with its reason and its legs; needs DATABASE_URL only.
//   pnpm --filter @gateway/settlement-worker replan <deposit-id> [--timeout <seconds>]
//       once the cause is fixed (payout address changed or taken off the blacklist, fee address
//       configured anew, wallet topped up): cancels the old authorizations not used, on chain,
//       waits until the cancellations are final, writes a new plan with fresh nonces as the
//       wallet's terms and PLATFORM_FEE_ADDRESS give it now (never from the old rows), and queues
//       the deposit. Run it again to resume after a timeout.
import { Type } from '@sinclair/typebox';
import { chainIdentitySettings, ConfigError, databasePoolOptions, databaseSettings, loadConfig, runtimeSettings } from '@gateway/config';
import { createPool, SettlementRepository, type DepositNeedingAttention } from '@gateway/db/settlement-worker';
import { formatUsdc } from '@gateway/domain';
import { ensureLiveSettlementJob } from '@gateway/queue';
import { buildSettlementWorkerApp } from './app';
import { loadSettlementConfig, settlementChainOptions } from './config';
import { SettlementChain } from './services/settlement-chain';

const USAGE = 'usage: replan --list | replan <deposit-id> [--timeout <seconds>]';
const DEFAULT_TIMEOUT_SECONDS = 600;
const listSettings = Type.Object({ ...runtimeSettings, ...databaseSettings, ...chainIdentitySettings });

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--list' && argv.length === 1) return list();
  const depositId = argv[0] ?? '';
  const timeoutSeconds = argv[1] === '--timeout' && argv.length === 3 ? Number(argv[2]) : argv.length === 1 ? DEFAULT_TIMEOUT_SECONDS : NaN;
  if (!/^[1-9][0-9]{0,18}$/.test(depositId) || !Number.isInteger(timeoutSeconds) || timeoutSeconds < 1) {
    console.error(USAGE);
    return 2;
  }
  return replan(depositId, timeoutSeconds * 1000);
}

async function list(): Promise<number> {
  const raw = loadConfig(listSettings);
  const pool = createPool({ ...databasePoolOptions(raw, 'settlement-replan'), max: 1, app: 'settlement-worker' });
  try {
    const deposits = await new SettlementRepository(pool).listNeedingAttention(raw.CHAIN_ID);
    if (deposits.length === 0) console.log('no deposit needs attention');
    for (const deposit of deposits) console.log(describe(deposit));
    return 0;
  } finally {
    await pool.end();
  }
}

function describe(deposit: DepositNeedingAttention): string {
  const head = [
    `deposit ${deposit.depositId}`,
    deposit.status,
    deposit.reason ?? 'leg needs attention',
    `${formatUsdc(deposit.amount)} USDC`,
    `since ${deposit.since?.toISOString() ?? '?'}`,
    `wallet ${deposit.temporaryAddress}`,
    `payout ${deposit.payoutAddress}`,
    `txid_in ${deposit.txHash}`,
  ].join('  ');
  const legs = deposit.legs.map((leg) =>
    [
      `  ${leg.leg.padEnd(9)}`,
      leg.status.padEnd(15),
      `${formatUsdc(leg.amount)} USDC to ${leg.toAddress}`,
      leg.reason ? `${leg.reason} (${leg.detail ?? ''})` : '',
    ]
      .join('  ')
      .trimEnd(),
  );
  return [head, ...legs].join('\n');
}

async function replan(depositId: string, timeoutMs: number): Promise<number> {
  const config = loadSettlementConfig();
  const { raw } = config;
  const chain = await SettlementChain.connect(settlementChainOptions(config));
  const pool = createPool({ ...databasePoolOptions(raw, 'settlement-replan'), max: 3, app: 'settlement-worker' });
  // The worker's app, never started: the same components and checks (seed, relayer), no consumer.
  const app = await buildSettlementWorkerApp({ config, pool, chain, logger: false });
  try {
    const outcome = await app.replanner.replan(depositId, { timeoutMs, report: (line) => console.log(line) });
    switch (outcome.result) {
      case 'not_found':
        console.error(`no deposit ${depositId}`);
        return 1;
      case 'busy':
        console.error(`deposit ${depositId} is being settled by a worker right now; try again in a moment`);
        return 1;
      case 'nothing_to_replan':
        console.error(`deposit ${depositId} is ${outcome.status} and none of its legs needs attention: nothing to re-plan`);
        return 1;
      case 'timed_out':
        console.error(`the cancellations of the ${outcome.pending.join(', ')} leg(s) are not final yet; run replan ${depositId} again`);
        return 3;
      case 'replanned': {
        // Its last run ended (needs_attention, or failed): the job is added again, or retried.
        await ensureLiveSettlementJob(app.settlement.settlementQueue, depositId);
        const paid = outcome.paid.length > 0 ? `; paid after all: ${outcome.paid.join(', ')}` : '';
        console.log(`deposit ${depositId} re-planned (${outcome.replaced.length} new leg(s)${paid}) and queued`);
        return 0;
      }
    }
  } finally {
    await app.close();
    await pool.end();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    // A chain error's first line says it (e.g. the token refusing the cancellation while paused).
    console.error(`replan: ${error instanceof ConfigError ? error.message : error.message.split('\n')[0]}`);
    process.exit(1);
  },
);
