import type { NewPayoutLeg } from '@gateway/db/settlement-worker';
import { payoutGasCheck, type PayoutGasCheck } from '@gateway/domain';
import type { SettlementConfig } from '../config';
import type { Relayer } from '../chain/relayer';
import type { SettlementChainClient } from '../chain/settlement-chain-client';

/** PAYOUT_BELOW_GAS_COST: hold a payout whose platform fee is worth less than its gas (the default), or pay it anyway. */
export type BelowGasCost = 'hold' | 'pay';

export interface PayoutCostingSettings {
  belowGasCost: BelowGasCost;
  /** NATIVE_PRICE_USDC, in USDC base units per native coin: what the relayer's gas is worth. */
  nativePriceUsdc: bigint;
}

/**
 * Weighs a planned payout against the gas the relayer will pay for it (payoutGasCheck in
 * @gateway/domain), at the price the relayer would sign with now: the fee estimate, at most the
 * ceiling (MAX_FEE_PER_GAS_GWEI). The settlement worker asks before it plans a deposit, gateway dust sweep
 * before it sweeps a wallet.
 */
export class PayoutCosting {
  constructor(
    private readonly chain: Pick<SettlementChainClient, 'estimateFees'>,
    private readonly relayer: Pick<Relayer, 'firstFees'>,
    private readonly settings: PayoutCostingSettings,
  ) {}

  /** Undefined when the operator pays every payout whatever its gas costs (PAYOUT_BELOW_GAS_COST=pay). */
  async weigh(legs: readonly NewPayoutLeg[]): Promise<PayoutGasCheck | undefined> {
    if (this.settings.belowGasCost === 'pay') return undefined;
    const gasPriceWei = this.relayer.firstFees(await this.chain.estimateFees()).fees.maxFeePerGas;
    return payoutGasCheck(
      legs.map((leg) => ({ kind: leg.leg, amount: leg.amount })),
      { gasPriceWei, nativePriceUsdc: this.settings.nativePriceUsdc },
    );
  }
}

/** The rule as configured (PAYOUT_BELOW_GAS_COST, NATIVE_PRICE_USDC): the settlement worker's, and gateway dust sweep's. */
export function payoutCosting(
  config: SettlementConfig,
  chain: Pick<SettlementChainClient, 'estimateFees'>,
  relayer: Pick<Relayer, 'firstFees'>,
): PayoutCosting {
  return new PayoutCosting(chain, relayer, { belowGasCost: config.raw.PAYOUT_BELOW_GAS_COST, nativePriceUsdc: config.nativePriceUsdc });
}
