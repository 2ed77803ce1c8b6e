import { getAddress } from 'viem';
import { buildCallbackUrl, formatUsdc, gatewayParamsIn, type GatewayCallbackParamName } from '@gateway/domain';
import type { ClaimedCallbackDelivery } from '@gateway/db/callback-worker';
import { CALLBACK_DELIVERY_ID_HEADER, CALLBACK_SIGNATURE_HEADER, signCallback, type CallbackSigningKey } from '@usdc-card-gateway/sdk';

/** The `coin` value of every callback: the gateway only pays out USDC on Polygon. */
export const CALLBACK_COIN = 'polygon_usdc';

export interface CallbackRequest {
  url: string;
  headers: Record<string, string>;
  /**
   * Gateway names the registered URL already used (a wallet registered before the name was
   * reserved): the merchant's parameters of that name were dropped and ours sent instead.
   */
  droppedParams: GatewayCallbackParamName[];
}

/**
 * The GET the merchant receives: its registered URL untouched (but for a parameter using one of
 * our names, which is dropped), our parameters appended (amounts as exact decimal strings from base
 * units; address_out the payout address the merchant's share, value_forwarded_coin, was paid to;
 * then the order's total, expectation and state, each when the delivery has it),
 * signed with every signing key over exactly that URL (v1) and over the delivery id and that URL (v2).
 * Throws only when the registered URL is not a URL at all.
 */
export function buildCallbackRequest(
  delivery: ClaimedCallbackDelivery,
  signingKeys: readonly CallbackSigningKey[],
  timestamp?: number,
): CallbackRequest {
  const url = buildCallbackUrl(delivery.callbackUrl, {
    value_coin: formatUsdc(delivery.valueCoin),
    value_forwarded_coin: formatUsdc(delivery.valueForwardedCoin),
    fee_coin: formatUsdc(delivery.feeCoin),
    coin: CALLBACK_COIN,
    txid_in: delivery.txidIn,
    txid_out: delivery.txidOut,
    address_in: getAddress(delivery.temporaryAddress),
    // The wallet's payout address is never changed (migration 014), and settlement pays the
    // merchant's leg to exactly it (a leg that is not what the wallet's terms give is refused).
    address_out: getAddress(delivery.payoutAddress),
    ipn_token: delivery.ipnToken,
    // The order's figures as the delivery recorded them; a row written before them carries none.
    ...(delivery.orderTotalCoin === null ? {} : { order_total_coin: formatUsdc(delivery.orderTotalCoin) }),
    ...(delivery.orderExpectedCoin === null ? {} : { order_expected_coin: formatUsdc(delivery.orderExpectedCoin) }),
    ...(delivery.orderState === null ? {} : { order_state: delivery.orderState }),
  });
  return {
    url,
    headers: {
      [CALLBACK_SIGNATURE_HEADER]: signCallback({ url, deliveryId: delivery.id, privateKeys: signingKeys, timestamp }),
      [CALLBACK_DELIVERY_ID_HEADER]: delivery.id,
    },
    droppedParams: gatewayParamsIn(delivery.callbackUrl),
  };
}
