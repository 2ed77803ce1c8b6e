import type { PoolClient } from 'pg';
import type { OrderState } from '@gateway/domain';

export interface NewCallbackDelivery {
  /** uuid; also the BullMQ job id source and the delivery id header. */
  id: string;
  walletId: string;
  depositId: string;
  /** USDC base units. */
  valueCoin: bigint;
  valueForwardedCoin: bigint;
  feeCoin: bigint;
  txidIn: string;
  txidOut: string;
}

/** What the callback says of its order, as it stands when the deposit is forwarded (order-state.ts). */
export interface DeliveryOrderFigures {
  totalUsdc: bigint;
  /** Absent when no attempt of the wallet recorded what the order should bring. */
  judged?: { expectedUsdc: bigint; state: OrderState };
}

/**
 * Writes the callback delivery inside the caller's transaction: settlement calls this in the
 * same transaction that marks the deposit forwarded, so a forwarded deposit always has exactly
 * one delivery (unique on deposit_id) and the callback can never be lost between the two.
 * Returns the id of the delivery for this deposit (an existing one if it was already written).
 */
export async function insertCallbackDelivery(
  client: PoolClient,
  delivery: NewCallbackDelivery,
  order: DeliveryOrderFigures,
): Promise<string> {
  const { rows } = await client.query<{ id: string }>({
    text: `INSERT INTO callback_deliveries (id, wallet_id, deposit_id, value_coin, value_forwarded_coin, fee_coin, txid_in, txid_out,
                                             order_total_coin, order_expected_coin, order_state)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
           ON CONFLICT (deposit_id) DO UPDATE SET deposit_id = EXCLUDED.deposit_id
           RETURNING id`,
    values: [
      delivery.id,
      delivery.walletId,
      delivery.depositId,
      delivery.valueCoin.toString(),
      delivery.valueForwardedCoin.toString(),
      delivery.feeCoin.toString(),
      delivery.txidIn,
      delivery.txidOut,
      order.totalUsdc.toString(),
      order.judged?.expectedUsdc.toString() ?? null,
      order.judged?.state ?? null,
    ],
  });
  const row = rows[0];
  if (!row) throw new Error('callback delivery insert returned nothing');
  return row.id;
}
