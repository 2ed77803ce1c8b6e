import { randomBytes, randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import type { ClaimedCallbackDelivery } from '@gateway/db/callback-worker';

/** What the builders write with: the test schema's owner pool, or a client inside a test's transaction. */
export type Seeder = Pick<Pool | PoolClient, 'query'>;

/** SQL written as it stands in the VALUES list (a sequence's next value, a time relative to the database's clock). */
export class SqlExpression {
  constructor(readonly text: string) {}
}

export const sqlExpression = (text: string) => new SqlExpression(text);

type Value = string | number | bigint | boolean | Date | Buffer | null | SqlExpression;

/** A random `0x` hex string of `bytes` bytes: a tx hash (32), an address (20), a nonce. */
export const randomHex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;

/** A timestamp column: a moment, or an expression of the database's clock. */
type Moment = Date | string | SqlExpression;

export interface WalletSeed {
  /** Defaults to the next value of the wallets' HD index sequence. */
  hdIndex?: number | bigint;
  polygonAddress?: string;
  addressIn?: string;
  payoutAddress?: string;
  callbackUrl?: string;
  dedupeKey?: Buffer;
  ipnToken?: string;
  affiliateAddress?: string | null;
  affiliateFeeBps?: number | null;
  merchantFeeBps?: number | null;
  platformFeeBps?: number;
  /** The merchant's own order tolerance (migration 029); none unless given. */
  orderToleranceBps?: number | null;
  createdAt?: Moment;
}

export interface SeededWallet {
  id: string;
  polygonAddress: string;
  addressIn: string;
  payoutAddress: string;
  callbackUrl: string;
  ipnToken: string;
}

/** A wallet row as wallet-control would have written it: fresh addresses, callback URL and token unless given. */
export async function seedWallet(db: Seeder, seed: WalletSeed = {}): Promise<SeededWallet> {
  const wallet = {
    polygonAddress: (seed.polygonAddress ?? randomHex(20)).toLowerCase(),
    addressIn: seed.addressIn ?? `test.${randomBytes(16).toString('hex')}`,
    payoutAddress: (seed.payoutAddress ?? randomHex(20)).toLowerCase(),
    callbackUrl: seed.callbackUrl ?? `https://shop.example/ipn?order=${randomBytes(4).toString('hex')}`,
    ipnToken: seed.ipnToken ?? randomBytes(24).toString('base64url'),
  };
  const [id] = await insertRows(db, 'wallets', [
    {
      hd_index: seed.hdIndex ?? sqlExpression("nextval('wallet_hd_index_seq')"),
      polygon_address: wallet.polygonAddress,
      address_in: wallet.addressIn,
      payout_address: wallet.payoutAddress,
      callback_url: wallet.callbackUrl,
      dedupe_key: seed.dedupeKey ?? randomBytes(32),
      ipn_token: wallet.ipnToken,
      affiliate_address: seed.affiliateAddress?.toLowerCase() ?? seed.affiliateAddress,
      affiliate_fee_bps: seed.affiliateFeeBps,
      merchant_fee_bps: seed.merchantFeeBps,
      platform_fee_bps: seed.platformFeeBps,
      order_tolerance_bps: seed.orderToleranceBps,
      created_at: seed.createdAt,
    },
  ]);
  return { id: id!, ...wallet };
}

export interface PaymentSeed {
  walletId: string;
  id?: string;
  amount?: string | number;
  currency?: string;
  provider?: string;
  email?: string;
  status?: 'creating' | 'redirected' | 'checkout_failed';
  checkoutUrl?: string | null;
  checkoutServedAt?: Moment;
  checkoutAttempts?: number;
  createdAt?: Moment;
  providerStatus?: 'pending' | 'charged' | 'paid' | 'declined' | 'failed' | null;
  providerRawStatus?: string | null;
  providerReference?: string | null;
  providerReason?: string | null;
  /** The kind of that reason (migration 035, a DeclineKind of @gateway/domain): only with a declined or failed provider status. */
  providerDeclineKind?: string | null;
  providerTxHash?: string | null;
  providerUpdatedAt?: Moment | null;
  statusPollDueAt?: Moment | null;
  customerKeyHash?: Buffer | null;
  /** What the attempt should bring (migration 029): recorded whole, as payments_expectation_whole requires; none unless given. */
  expectation?: PaymentExpectationSeed;
}

export interface PaymentExpectationSeed {
  /** The order's USD value at the attempt's rate, decimal. */
  amountUsd: string;
  /** USDC base units the provider should deliver. */
  usdc: bigint;
  basis: 'quote' | 'estimate';
  toleranceBps: number;
  windowEndsAt: Moment;
  /** Units of the currency per 1 USD, with its source and time; none unless given (the columns allow none). */
  usdRate?: string;
  usdRateSource?: string;
  usdRateAsOf?: Moment;
}

/** A Process Payment attempt on `walletId` (25 USD at the sandbox unless given); gives its id. */
export async function seedPayment(db: Seeder, seed: PaymentSeed): Promise<string> {
  const id = seed.id ?? randomUUID();
  await insertRows(db, 'payments', [
    {
      id,
      wallet_id: seed.walletId,
      amount: seed.amount ?? '25',
      currency: seed.currency ?? 'USD',
      provider: seed.provider ?? 'sandbox',
      email: seed.email ?? 'buyer@example.com',
      status: seed.status,
      checkout_url: seed.checkoutUrl,
      checkout_served_at: seed.checkoutServedAt,
      checkout_attempts: seed.checkoutAttempts,
      created_at: seed.createdAt,
      provider_status: seed.providerStatus,
      provider_raw_status: seed.providerRawStatus,
      provider_reference: seed.providerReference,
      provider_reason: seed.providerReason,
      provider_decline_kind: seed.providerDeclineKind,
      provider_tx_hash: seed.providerTxHash,
      provider_updated_at: seed.providerUpdatedAt,
      status_poll_due_at: seed.statusPollDueAt,
      customer_key_hash: seed.customerKeyHash,
      amount_usd: seed.expectation?.amountUsd,
      usd_rate: seed.expectation?.usdRate,
      usd_rate_source: seed.expectation?.usdRateSource,
      usd_rate_as_of: seed.expectation?.usdRateAsOf,
      expected_usdc: seed.expectation?.usdc,
      expected_basis: seed.expectation?.basis,
      tolerance_bps: seed.expectation?.toleranceBps,
      window_ends_at: seed.expectation?.windowEndsAt,
    },
  ]);
  return id;
}

export interface DepositSeed {
  walletId: string;
  chainId?: number;
  txHash?: string;
  logIndex?: number;
  blockNumber?: number | bigint;
  blockHash?: string;
  fromAddress?: string;
  /** In token base units; 1 USDC unless given. */
  amount?: bigint;
  status?: string;
  attentionReason?: string | null;
  seenAt?: Moment;
  finalAt?: Moment | null;
  forwardedAt?: Moment | null;
  /** The token contract; the column's own default (none) unless given. */
  token?: string;
}

export interface SeededDeposit {
  id: string;
  txHash: string;
}

/** USDC transfers into temporary wallets as the chain-watcher records them (seen on Polygon unless given). */
export async function seedDeposits(db: Seeder, seeds: DepositSeed[]): Promise<SeededDeposit[]> {
  const txHashes = seeds.map((seed) => (seed.txHash ?? randomHex(32)).toLowerCase());
  const ids = await insertRows(
    db,
    'deposits',
    seeds.map((seed, i) => ({
      chain_id: seed.chainId ?? 137,
      tx_hash: txHashes[i]!,
      log_index: seed.logIndex ?? 0,
      block_number: seed.blockNumber ?? 1,
      block_hash: seed.blockHash ?? randomHex(32),
      wallet_id: seed.walletId,
      from_address: (seed.fromAddress ?? randomHex(20)).toLowerCase(),
      amount: seed.amount ?? 1_000_000n,
      status: seed.status,
      attention_reason: seed.attentionReason,
      seen_at: seed.seenAt,
      final_at: seed.finalAt,
      forwarded_at: seed.forwardedAt,
      token: seed.token?.toLowerCase(),
    })),
  );
  return ids.map((id, i) => ({ id, txHash: txHashes[i]! }));
}

export async function seedDeposit(db: Seeder, seed: DepositSeed): Promise<SeededDeposit> {
  const [deposit] = await seedDeposits(db, [seed]);
  return deposit!;
}

export interface PayoutSeed {
  depositId: string;
  leg?: 'merchant' | 'platform' | 'affiliate';
  fromAddress?: string;
  toAddress?: string;
  amount?: bigint;
  authorizationNonce?: string;
  validBefore?: number | bigint;
  signature?: string | null;
  status?: 'planned' | 'signed' | 'broadcast' | 'confirmed' | 'needs_attention' | 'cancelled';
  /** A fresh hash for a confirmed leg (the schema wants one exactly then), none otherwise, unless given. */
  txHash?: string | null;
  blockNumber?: number | bigint | null;
  attentionReason?: string | null;
  createdAt?: Moment;
  confirmedAt?: Moment | null;
}

export interface SeededPayout {
  id: string;
  txHash: string | null;
}

/** One leg of a deposit's forwarding (the merchant's, planned, unless given). */
export async function seedPayout(db: Seeder, seed: PayoutSeed): Promise<SeededPayout> {
  const txHash = seed.txHash !== undefined ? seed.txHash : seed.status === 'confirmed' ? randomHex(32) : null;
  const [id] = await insertRows(db, 'payouts', [
    {
      deposit_id: seed.depositId,
      leg: seed.leg ?? 'merchant',
      from_address: (seed.fromAddress ?? randomHex(20)).toLowerCase(),
      to_address: (seed.toAddress ?? randomHex(20)).toLowerCase(),
      amount: seed.amount ?? 1n,
      authorization_nonce: seed.authorizationNonce ?? randomHex(32),
      valid_before: seed.validBefore ?? 0,
      signature: seed.signature,
      status: seed.status,
      tx_hash: txHash,
      block_number: seed.blockNumber,
      attention_reason: seed.attentionReason,
      created_at: seed.createdAt,
      confirmed_at: seed.confirmedAt,
    },
  ]);
  return { id: id!, txHash };
}

export interface DeliverySeed {
  walletId: string;
  id?: string;
  depositId?: string | null;
  valueCoin?: bigint;
  valueForwardedCoin?: bigint;
  feeCoin?: bigint;
  txidIn?: string;
  txidOut?: string;
  /** The order's figures (USDC base units) as settlement records them; none unless given, as on a row written before them. */
  orderTotalCoin?: bigint;
  orderExpectedCoin?: bigint;
  orderState?: NonNullable<ClaimedCallbackDelivery['orderState']>;
  status?: 'pending' | 'delivered' | 'failed' | 'refused';
  attemptCount?: number;
  roundStartAttempts?: number;
  lastError?: string | null;
  nextAttemptAt?: Moment;
  createdAt?: Moment;
  deliveredAt?: Moment | null;
}

/** Merchant callbacks to deliver, as settlement writes them (10 USDC, 9.9 forwarded, pending, unless given); gives their ids. */
export async function seedDeliveries(db: Seeder, seeds: DeliverySeed[]): Promise<string[]> {
  const ids = seeds.map((seed) => seed.id ?? randomUUID());
  await insertRows(
    db,
    'callback_deliveries',
    seeds.map((seed, i) => ({
      id: ids[i]!,
      wallet_id: seed.walletId,
      deposit_id: seed.depositId,
      value_coin: seed.valueCoin ?? 10_000_000n,
      value_forwarded_coin: seed.valueForwardedCoin ?? 9_900_000n,
      fee_coin: seed.feeCoin ?? 100_000n,
      txid_in: seed.txidIn ?? randomHex(32),
      txid_out: seed.txidOut ?? randomHex(32),
      order_total_coin: seed.orderTotalCoin,
      order_expected_coin: seed.orderExpectedCoin,
      order_state: seed.orderState,
      status: seed.status,
      attempt_count: seed.attemptCount,
      round_start_attempts: seed.roundStartAttempts,
      last_error: seed.lastError,
      next_attempt_at: seed.nextAttemptAt,
      created_at: seed.createdAt,
      delivered_at: seed.deliveredAt,
    })),
  );
  return ids;
}

export async function seedDelivery(db: Seeder, seed: DeliverySeed): Promise<string> {
  const [id] = await seedDeliveries(db, [seed]);
  return id!;
}

/**
 * One INSERT of every row, giving their ids as text in order. A column left undefined takes its
 * default (DEFAULT in VALUES), so a seed says only what its test is about.
 */
async function insertRows(db: Seeder, table: string, rows: Array<Record<string, Value | undefined>>): Promise<string[]> {
  if (rows.length === 0) return [];
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row).filter((column) => row[column] !== undefined)))];
  const params: unknown[] = [];
  const tuples = rows.map((row) => {
    const cells = columns.map((column) => {
      const value = row[column];
      if (value === undefined) return 'DEFAULT';
      if (value instanceof SqlExpression) return value.text;
      params.push(typeof value === 'bigint' ? value.toString() : value);
      return `$${params.length}`;
    });
    return `(${cells.join(', ')})`;
  });
  // Multi-row VALUES keep the rows' order, and so does RETURNING.
  const { rows: inserted } = await db.query<{ id: string }>(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')} RETURNING id::text AS id`,
    params,
  );
  return inserted.map((row) => row.id);
}
