import { getAddress } from 'viem';
import { buildCallbackUrl, formatUsdc } from '@gateway/domain';
import type { ClaimedCallbackDelivery } from '@gateway/db';
import { CALLBACK_DELIVERY_ID_HEADER, CALLBACK_SIGNATURE_HEADER, signCallback, type CallbackSigningKey } from '@gateway/sdk';

/** The `coin` value of every callback: the gateway only pays out USDC on Polygon. */
export const CALLBACK_COIN = 'polygon_usdc';

export interface CallbackRequest {
  url: string;
  headers: Record<string, string>;
}

/**
 * The GET the merchant receives: its registered URL untouched, our parameters appended (amounts
 * as exact decimal strings from base units), signed over exactly that URL with every signing key.
 * Throws when the registered URL cannot carry a callback (not a URL, or it uses one of our names).
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
    ipn_token: delivery.ipnToken,
  });
  return {
    url,
    headers: {
      [CALLBACK_SIGNATURE_HEADER]: signCallback({ url, privateKeys: signingKeys, timestamp }),
      [CALLBACK_DELIVERY_ID_HEADER]: delivery.id,
    },
  };
}
