import { createHmac } from 'node:crypto';
import type { QueryNames, SignatureHeader, SignedWebhook } from './adapter-contract';
import { madeUpKey } from './made-up-key';

/**
 * One MoonPay account's keys per mode (MoonPay's own checkout, and the PayPal and Interac ones it
 * signs as well): made up in MoonPay's formats, no account has them.
 */
export const MOONPAY_KEYS = {
  live: { API_KEY: madeUpKey('pk', 'live', '1'), SECRET_KEY: madeUpKey('sk', 'live', '1'), WEBHOOK_KEY: madeUpKey('wk', 'live', '1') },
  test: { API_KEY: 'pk_test_123456789abc', SECRET_KEY: 'sk_test_abcdefgh1234', WEBHOOK_KEY: 'wk_test_zyxwvuts9876' },
};

/** What a MoonPay link names each value by (its widget parameters). */
export const MOONPAY_LINK: QueryNames = {
  wallet: 'walletAddress',
  amount: 'baseCurrencyAmount',
  currency: 'baseCurrencyCode',
  reference: 'externalTransactionId',
};

export const MOONPAY_SIGNATURE: SignatureHeader = { header: 'moonpay-signature-v2', encoding: 'hex', part: /(?<=,s=).*$/ };

/** A webhook as MoonPay's signature page describes it, signed here with node:crypto: hex HMAC-SHA256 of `t.body`. */
export function signedByMoonpay(payload: unknown, nowMs: number, key = MOONPAY_KEYS.live.WEBHOOK_KEY): SignedWebhook {
  const rawBody = Buffer.from(JSON.stringify(payload));
  const t = Math.floor(nowMs / 1000);
  const s = createHmac('sha256', key).update(`${t}.`).update(rawBody).digest('hex');
  return { rawBody, headers: { 'moonpay-signature-v2': `t=${t},s=${s}` } };
}
