import { databasePoolOptions } from '@gateway/config';
import { createPool } from '@gateway/db/cli';
import { formatUsdc, isHexAddress } from '@gateway/domain';
import { loadSettlementConfig, sweepHeldDust, type WalletSweep } from '@gateway/settlement-worker/operator';
import { CommandFailed, parseCommandArgs, toJson, UsageError, type CliIo } from '../command-kit';
import { withDatabase } from '../database';

/**
 * `gateway dust sweep (--all | --wallet <address>) [--force]`: pays out held dust now, one payout per
 * wallet (the settlement worker's sweepHeldDust), in the settlement worker's environment. Exit 1 when
 * a wallet's dust was taken by another payout meanwhile (run it again) or the address is no temporary wallet.
 */
export async function sweepCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    all: { type: 'boolean' },
    wallet: { type: 'string' },
    force: { type: 'boolean' },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  if ((values.all === true) === (values.wallet !== undefined)) throw new UsageError('name --all or one --wallet');
  if (values.wallet !== undefined && !isHexAddress(values.wallet)) throw new UsageError(`--wallet ${values.wallet} is not an address`);
  const wallet = values.wallet?.toLowerCase();

  const config = loadSettlementConfig(io.env);
  const pool = createPool({ ...databasePoolOptions(config.raw, 'gateway-cli-dust-sweep'), max: 2, app: 'settlement-worker' });
  const outcome = await withDatabase(pool, (open) => sweepHeldDust(config, open, { wallet, force: values.force === true }));
  if (outcome.result === 'no_such_wallet') throw new CommandFailed(`no temporary wallet ${wallet} in this gateway`);
  const failed = outcome.wallets.filter((swept) => swept.outcome === 'taken_meanwhile').length;
  if (values.json) io.out(toJson({ wallets: outcome.wallets }));
  else if (outcome.wallets.length === 0) io.out(wallet ? `no held dust in ${wallet}` : 'no held dust');
  for (const swept of values.json ? [] : outcome.wallets) {
    if (swept.outcome === 'taken_meanwhile') io.err(describe(swept));
    else io.out(describe(swept));
  }
  return failed === 0 ? 0 : 1;
}

function describe(swept: WalletSweep): string {
  const what = `${swept.wallet}: ${swept.heldDeposits} held deposit(s), ${formatUsdc(swept.amount)} USDC`;
  switch (swept.outcome) {
    case 'below_threshold':
      return `${what}, below DUST_THRESHOLD (${formatUsdc(swept.dustThreshold)} USDC): left held (--force pays it anyway)`;
    case 'below_gas_cost':
      return (
        `${what}: its platform fee (${formatUsdc(swept.platformFee)} USDC) is worth less than the payout's gas ` +
        `(${formatUsdc(swept.gasCost)} USDC at today's gas price): left held (--force pays it anyway)`
      );
    case 'taken_meanwhile':
      return `${what}: another payout of this wallet took some of it meanwhile; run gateway dust sweep again`;
    case 'paid': {
      const plan = swept.legs.map((leg) => `${leg.leg} ${formatUsdc(leg.amount)}`).join(', ');
      const queued =
        swept.queuedBy === 'queued' ? 'queued' : `Redis did not take the job (${swept.queueError}), the worker's reconciler will queue it`;
      return `${what}: paid out by deposit ${swept.carrierDepositId} (${plan}); ${queued}`;
    }
  }
}
