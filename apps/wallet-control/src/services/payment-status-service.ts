import { getAddress } from 'viem';
import {
  attemptThatPaid,
  COIN_NAMES,
  coinOfToken,
  formatUsdc,
  GatewayError,
  type NeedsAttentionReason,
  type UsdcCoin,
} from '@gateway/domain';
import type { PaymentStatusRecord, PaymentStatusRepository } from '@gateway/db/wallet-control';

/** The `coin` every gateway answer and callback names (USDC on Polygon). */
const COIN = 'polygon_usdc';

export interface PaymentStatusDeposit {
  status: string;
  attention_reason: NeedsAttentionReason | null;
  amount: string;
  coin: UsdcCoin;
  token_address: string;
  note: string | null;
  value_forwarded_coin: string | null;
  fee_coin: string | null;
  txid_in: string;
  txid_out: string | null;
  seen_at: string;
  forwarded_at: string | null;
  /** The payment credited with the deposit (attemptThatPaid), and its provider; null when no listed payment is. */
  payment_id: string | null;
  provider: string | null;
}

export interface PaymentStatusPayment {
  payment_id: string;
  provider: string;
  amount: string;
  currency: string;
  provider_status: string | null;
  provider_reference: string | null;
  created_at: string;
  provider_updated_at: string | null;
}

export interface PaymentStatus {
  status: 'paid' | 'unpaid';
  value_coin: string;
  value_forwarded_coin: string;
  fee_coin: string;
  txid_in: string | null;
  txid_out: string | null;
  coin: typeof COIN;
  polygon_address_in: string;
  payout_address: string;
  callback_url: string;
  deposits: PaymentStatusDeposit[];
  deposit_count: number;
  payments: PaymentStatusPayment[];
}

/**
 * Check Payment Status: what the merchant holding an ipn_token may know about its wallet. Nothing
 * about the customer (no e-mail); the payout address and callback are the merchant's own.
 */
export class PaymentStatusService {
  constructor(
    private readonly statuses: PaymentStatusRepository,
    /** USDC_TOKEN_ADDRESS: the token deposits are settled in; any other is the other USDC. */
    private readonly settledToken: string,
  ) {}

  async statusOf(ipnToken: string): Promise<PaymentStatus> {
    const record = await this.statuses.findByIpnToken(ipnToken);
    if (!record) {
      throw new GatewayError(
        'not_found',
        'no wallet has this ipn_token; use the ipn_token Create Wallet returned (it is also in every callback)',
        'ipn_token',
      );
    }
    return toWire(record, this.settledToken);
  }
}

function toWire(record: PaymentStatusRecord, settledToken: string): PaymentStatus {
  const { forwarded, latestForwarded } = record;
  return {
    status: forwarded.count > 0 ? 'paid' : 'unpaid',
    value_coin: formatUsdc(forwarded.valueCoin),
    value_forwarded_coin: formatUsdc(forwarded.valueForwardedCoin),
    fee_coin: formatUsdc(forwarded.feeCoin),
    txid_in: latestForwarded?.txidIn ?? null,
    txid_out: latestForwarded?.txidOut ?? null,
    coin: COIN,
    polygon_address_in: getAddress(record.polygonAddress),
    payout_address: getAddress(record.payoutAddress),
    callback_url: record.callbackUrl,
    deposits: record.deposits.map((deposit) => {
      // The payments listed are the newest: a deposit older than all of them is credited to none listed (null).
      const creditedTo = record.payments.find((payment) => payment.id === attemptThatPaid(deposit, record.payments));
      const coin = coinOfToken(deposit.token, settledToken);
      return {
        status: deposit.status,
        attention_reason: deposit.attentionReason,
        amount: formatUsdc(deposit.amount),
        coin,
        token_address: getAddress(deposit.token ?? settledToken),
        note: deposit.status === 'held_for_operator' ? heldForOperatorNote(deposit.amount, coin) : null,
        value_forwarded_coin: deposit.valueForwardedCoin === null ? null : formatUsdc(deposit.valueForwardedCoin),
        fee_coin: deposit.feeCoin === null ? null : formatUsdc(deposit.feeCoin),
        txid_in: deposit.txHash,
        txid_out: deposit.txidOut,
        seen_at: deposit.seenAt.toISOString(),
        forwarded_at: deposit.forwardedAt?.toISOString() ?? null,
        payment_id: creditedTo?.id ?? null,
        provider: creditedTo?.provider ?? null,
      };
    }),
    deposit_count: record.depositCount,
    payments: record.payments.map((payment) => ({
      payment_id: payment.id,
      provider: payment.provider,
      amount: payment.amount,
      currency: payment.currency,
      provider_status: payment.providerStatus,
      provider_reference: payment.providerReference,
      created_at: payment.createdAt.toISOString(),
      provider_updated_at: payment.providerUpdatedAt?.toISOString() ?? null,
    })),
  };
}

function heldForOperatorNote(amount: bigint, coin: UsdcCoin): string {
  return (
    `The customer paid ${formatUsdc(amount)} ${COIN_NAMES[coin]}, a USDC this gateway does not settle. It is held for the gateway ` +
    'operator: it has not been forwarded to the payout wallet and no callback was sent for it. Contact the gateway operator.'
  );
}
