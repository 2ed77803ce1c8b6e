// Operator command: `pnpm --filter @gateway/settlement-worker sweep-dust (--all | --wallet <temporary address>) [--force]`
// pays out held dust now, without waiting for the next deposit into its wallet. Each wallet's held
// deposits become one payout of their sum, carried by the newest of them (the others are swept by
// it, and its one callback reports the sum); a sum below DUST_THRESHOLD, or whose platform fee is
// worth less than the payout's gas (PAYOUT_BELOW_GAS_COST=hold, at the gas price now), stays held
// unless --force. Runs in the settlement worker's environment (it reads the same settings and asks
// the same node for the gas price; it signs nothing: the worker pays the planned legs). If Redis is
// out of reach, the worker's reconciler queues them.
import { ConfigError, databasePoolOptions } from '@gateway/config';
import { formatUsdc, sweepOfHeldDust } from '@gateway/domain';
import { createPool, SettlementRepository, WalletLookupRepository, type WalletHeldDust } from '@gateway/db/settlement-worker';
import { ensureLiveSettlementJob, openSettlementQueue, type SettlementQueue } from '@gateway/queue';
import { loadSettlementConfig, settlementChainOptions } from './config';
import { payoutCosting, type PayoutCosting } from './services/payout-costing';
import { PayoutPlanner } from './services/payout-planner';
import { Relayer } from './services/relayer';
import { SettlementChain } from './services/settlement-chain';

const USAGE = 'usage: sweep-dust (--all | --wallet <temporary wallet address>) [--force]';
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

interface SweepRequest {
  /** Lower-case; undefined for every wallet. */
  wallet?: string;
  force: boolean;
}

function parseArguments(args: readonly string[]): SweepRequest | undefined {
  let all = false;
  let wallet: string | undefined;
  let force = false;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (arg === '--all') all = true;
    else if (arg === '--force') force = true;
    else if (arg === '--wallet' && ADDRESS.test(args[i + 1] ?? '')) wallet = args[++i]!.toLowerCase();
    else return undefined;
  }
  if (all === (wallet !== undefined)) return undefined;
  return { wallet, force };
}

async function main(): Promise<number> {
  const request = parseArguments(process.argv.slice(2));
  if (!request) {
    console.error(USAGE);
    return 2;
  }
  const config = loadSettlementConfig();
  const { raw } = config;
  const pool = createPool({ ...databasePoolOptions(raw, 'settlement-sweep-dust'), max: 2, app: 'settlement-worker' });
  const queue = openSettlementQueue(config.redis);
  try {
    const settlements = new SettlementRepository(pool);
    const wallets = await settlements.walletsWithHeldDust(raw.CHAIN_ID, request.wallet);
    if (wallets.length === 0) {
      if (request.wallet && !(await new WalletLookupRepository(pool).hasTemporaryAddress(request.wallet))) {
        console.error(`no temporary wallet ${request.wallet} in this gateway`);
        return 1;
      }
      console.log(request.wallet ? `no held dust in ${request.wallet}` : 'no held dust');
      return 0;
    }
    const planner = new PayoutPlanner({
      platformFeeAddress: config.platformFeeAddress,
      authorizationValiditySeconds: raw.AUTHORIZATION_VALIDITY_SECONDS,
    });
    // The worker's rule for a payout's gas, priced by the same node at the same ceiling; --force pays regardless.
    let costing: PayoutCosting | undefined;
    if (!request.force) {
      const chain = await SettlementChain.connect(settlementChainOptions(config));
      costing = payoutCosting(config, chain, new Relayer(config.relayerKey, chain.chainId, raw.FEE_BUMP_PERCENT, config.maxFeePerGas));
    }
    let failed = 0;
    for (const wallet of wallets) {
      if (!(await sweepWallet(wallet, { settlements, planner, queue, costing, dustThreshold: config.dustThreshold, force: request.force })))
        failed += 1;
    }
    return failed === 0 ? 0 : 1;
  } finally {
    await queue.close();
    await pool.end();
  }
}

interface SweepDeps {
  settlements: SettlementRepository;
  planner: PayoutPlanner;
  queue: SettlementQueue;
  /** Undefined when forced. */
  costing: PayoutCosting | undefined;
  dustThreshold: bigint;
  force: boolean;
}

/** Plans one wallet's payout of its held dust and queues it; false when it could not be planned. */
async function sweepWallet(
  wallet: WalletHeldDust,
  { settlements, planner, queue, costing, dustThreshold, force }: SweepDeps,
): Promise<boolean> {
  const amounts = wallet.held.map((dust) => dust.amount);
  const sweep = sweepOfHeldDust(amounts, dustThreshold, force);
  const what = `${wallet.temporaryAddress}: ${wallet.held.length} held deposit(s), ${formatUsdc(sweep.payable)} USDC`;
  if (!sweep.pay) {
    console.log(`${what}, below DUST_THRESHOLD (${formatUsdc(dustThreshold)} USDC): left held (--force pays it anyway)`);
    return true;
  }
  const carrier = wallet.held[wallet.held.length - 1]!;
  const deposit = await settlements.findDeposit(carrier.id);
  if (!deposit) throw new Error(`held deposit ${carrier.id} vanished`);
  const legs = planner.legs(deposit, sweep.payable);
  const gas = await costing?.weigh(legs);
  if (gas && !gas.covered) {
    console.log(
      `${what}: its platform fee (${formatUsdc(gas.earnedUsdc)} USDC) is worth less than the payout's gas (${formatUsdc(gas.gasCostUsdc)} USDC at today's gas price): left held (--force pays it anyway)`,
    );
    return true;
  }
  const sweptDepositIds = wallet.held.slice(0, -1).map((dust) => dust.id);
  if (!(await settlements.startForwarding(carrier.id, legs, { sweptDepositIds, from: 'held' }))) {
    console.error(`${what}: another payout of this wallet took some of it meanwhile; run sweep-dust again`);
    return false;
  }
  const plan = legs.map((leg) => `${leg.leg} ${formatUsdc(leg.amount)}`).join(', ');
  try {
    await ensureLiveSettlementJob(queue, carrier.id);
    console.log(`${what}: paid out by deposit ${carrier.id} (${plan}); queued`);
  } catch (error) {
    console.log(
      `${what}: paid out by deposit ${carrier.id} (${plan}); Redis did not take the job (${(error as Error).message}), the worker's reconciler will queue it`,
    );
  }
  return true;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(error instanceof ConfigError ? `sweep-dust: ${error.message}` : error);
    process.exit(1);
  },
);
