import type { FastifyBaseLogger } from 'fastify';
import type { Pool } from 'pg';
import type { Registry } from 'prom-client';
import { parseEventLogs, type Hash } from 'viem';
import { usdcAbi } from '@gateway/chain';
import { assertTokenCounted, assertWalletsHdKey } from '@gateway/http/boot-checks';
import { OperatorPayoutRepository, type HandPayoutCandidate, type OperatorPayout } from '@gateway/db/settlement-worker';
import { checkHandPayout, handPayoutAmounts, type DepositStatus, type TokenTransfer } from '@gateway/domain';
import { settlementChainOptions, type SettlementConfig } from '../config';
import { SettlementMetrics } from '../metrics';
import { PayoutFinality } from '../legs/payout-finality';
import { SettlementChainClient } from '../chain/settlement-chain-client';
import { TemporaryWalletKeys } from '../chain/temporary-wallet-keys';
import { payoutTokenCheck, seedKeyCheck } from './boot-checks';

/** A deposit held for the operator, with what a payout by hand of it may move. */
export type HeldDeposit = HandPayoutCandidate & { merchantShare: bigint };

/** Every deposit waiting to be paid out by hand, oldest first (DATABASE_URL alone). */
export async function listHeldForOperator(pool: Pool, chainId: number): Promise<HeldDeposit[]> {
  const held = await new OperatorPayoutRepository(pool).listHeld(chainId);
  return held.map((deposit) => ({
    ...deposit,
    merchantShare: handPayoutAmounts({ amount: deposit.amount, terms: terms(deposit) }).merchantShare,
  }));
}

export type HandPayoutResult =
  | { result: 'not_found' }
  | { result: 'not_held'; status: DepositStatus | undefined }
  | { result: 'not_mined' }
  | { result: 'reverted'; blockNumber: bigint }
  | { result: 'not_final'; blockNumber: bigint }
  | { result: 'refused'; reason: string }
  | { result: 'transfer_taken'; depositId: string }
  | { result: 'recorded'; payout: OperatorPayout };

/**
 * Records that the operator paid a deposit held for it out by hand, in transaction `txHash`, once the
 * chain says so: the transaction succeeded and is final by the workers' finality rule, and one of its
 * Transfer logs moves the deposit's token from its temporary wallet (which the settlement seed derives
 * at the wallet's index: a wallet of this gateway) to the wallet's payout address, the merchant's share
 * or the whole deposit (checkHandPayout). Then, in one transaction, the deposit is paid_by_operator and
 * the transfer recorded, once: a transfer pays one deposit only. Nothing is sent or signed.
 */
export async function checkAndRecordHandPayout(
  config: SettlementConfig,
  pool: Pool,
  depositId: string,
  txHash: Hash,
  deps: { registry: Registry; log: FastifyBaseLogger },
): Promise<HandPayoutResult> {
  const payouts = new OperatorPayoutRepository(pool);
  const deposit = await payouts.find(depositId);
  if (!deposit) return { result: 'not_found' };
  if (deposit.status !== 'held_for_operator') return { result: 'not_held', status: deposit.status };
  const chain = await SettlementChainClient.connect(settlementChainOptions(config));
  await assertWalletsHdKey(seedKeyCheck(pool, config.mnemonic));
  await assertTokenCounted(payoutTokenCheck(pool, chain));
  // Throws when the seed does not derive the wallet: then it is not ours to vouch for.
  new TemporaryWalletKeys(config.mnemonic).accountAt(deposit.hdIndex, deposit.temporaryAddress);

  const receipt = await chain.receiptOf(txHash);
  if (!receipt) return { result: 'not_mined' };
  if (receipt.status !== 'success') return { result: 'reverted', blockNumber: receipt.blockNumber };
  const finality = new PayoutFinality({
    chain,
    confirmations: config.raw.CONFIRMATIONS,
    metrics: new SettlementMetrics(deps.registry),
    log: deps.log,
  });
  if (!(await finality.isFinal({ txHash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash }))) {
    return { result: 'not_final', blockNumber: receipt.blockNumber };
  }
  if (deposit.token === null) return { result: 'refused', reason: `deposit ${depositId} records no token` };
  // Lower-case, the form the database keeps addresses in.
  const transfers: TokenTransfer[] = parseEventLogs({ abi: usdcAbi, eventName: 'Transfer', logs: receipt.logs }).map((log) => ({
    token: log.address.toLowerCase(),
    from: log.args.from.toLowerCase(),
    to: log.args.to.toLowerCase(),
    value: log.args.value,
    logIndex: log.logIndex,
  }));
  const check = checkHandPayout(
    {
      token: deposit.token,
      amount: deposit.amount,
      temporaryAddress: deposit.temporaryAddress,
      payoutAddress: deposit.payoutAddress,
      terms: terms(deposit),
    },
    transfers,
  );
  if (check.result === 'refused') return check;
  const payout: OperatorPayout = {
    chainId: deposit.chainId,
    txHash,
    logIndex: check.transfer.logIndex,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    token: check.transfer.token,
    fromAddress: check.transfer.from,
    toAddress: check.transfer.to,
    amount: check.transfer.value,
    paid: check.paid,
  };
  const recorded = await payouts.record(depositId, payout);
  return recorded.result === 'recorded' ? { result: 'recorded', payout } : recorded;
}

function terms(deposit: HandPayoutCandidate) {
  return { platformFeeBps: deposit.platformFeeBps, affiliateFeeBps: deposit.affiliateFeeBps };
}
