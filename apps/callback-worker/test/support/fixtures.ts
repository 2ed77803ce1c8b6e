import { generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import IORedis from 'ioredis';
import type { Pool } from 'pg';

export interface TestWallet {
  id: string;
  /** Lower-case, as stored. */
  polygonAddress: string;
  /** Lower-case, as stored. */
  payoutAddress: string;
  ipnToken: string;
  callbackUrl: string;
}

/** A wallet owning `callbackUrl` (a URL has one live wallet: migration 013). */
export async function insertWallet(pool: Pool, callbackUrl: string): Promise<TestWallet> {
  const polygonAddress = `0x${randomBytes(20).toString('hex')}`;
  const payoutAddress = `0x${randomBytes(20).toString('hex')}`;
  const ipnToken = randomBytes(24).toString('base64url');
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
     VALUES (nextval('wallet_hd_index_seq'), $1, $2, $3, $4, $5, $6) RETURNING id::text`,
    [polygonAddress, `test.${randomBytes(16).toString('hex')}`, payoutAddress, callbackUrl, randomBytes(32), ipnToken],
  );
  return { id: rows[0]!.id, polygonAddress, payoutAddress, ipnToken, callbackUrl };
}

export interface DeliveryValues {
  valueCoin?: bigint;
  valueForwardedCoin?: bigint;
  feeCoin?: bigint;
  /** Defaults to a unique hash per delivery. */
  txidIn?: string;
  txidOut?: string;
}

/** Deliveries due now, as settlement writes them (deposit_id left NULL: no deposits in these tests). */
export async function insertDeliveries(pool: Pool, walletId: string, count: number, values: DeliveryValues = {}): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  const txids = ids.map(() => values.txidIn ?? `0x${randomBytes(32).toString('hex')}`);
  await pool.query(
    `INSERT INTO callback_deliveries (id, wallet_id, value_coin, value_forwarded_coin, fee_coin, txid_in, txid_out)
     SELECT id, $2, $3, $4, $5, txid_in, $6 FROM unnest($1::uuid[], $7::text[]) AS t(id, txid_in)`,
    [
      ids,
      walletId,
      (values.valueCoin ?? 10_000_000n).toString(),
      (values.valueForwardedCoin ?? 9_900_000n).toString(),
      (values.feeCoin ?? 100_000n).toString(),
      values.txidOut ?? `0x${randomBytes(32).toString('hex')}`,
      txids,
    ],
  );
  return ids;
}

export interface DeliveryRow {
  id: string;
  status: string;
  attempt_count: number;
  next_attempt_at: Date;
  delivered_at: Date | null;
  last_error: string | null;
  resend_count: number;
}

export async function deliveryRow(pool: Pool, id: string): Promise<DeliveryRow> {
  const { rows } = await pool.query<DeliveryRow>('SELECT * FROM callback_deliveries WHERE id = $1', [id]);
  return rows[0]!;
}

export interface AttemptRow {
  attempt_no: number;
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  error_code: string | null;
  error: string | null;
  response_excerpt: string | null;
}

export async function attemptRows(pool: Pool, id: string): Promise<AttemptRow[]> {
  const { rows } = await pool.query<AttemptRow>('SELECT * FROM callback_attempts WHERE delivery_id = $1 ORDER BY attempt_no', [id]);
  return rows;
}

export async function countByStatus(pool: Pool, ids: readonly string[]): Promise<Record<string, number>> {
  const { rows } = await pool.query<{ status: string; n: number }>(
    'SELECT status, count(*)::int AS n FROM callback_deliveries WHERE id = ANY($1::uuid[]) GROUP BY status',
    [ids],
  );
  return Object.fromEntries(rows.map((row) => [row.status, row.n]));
}

export interface SigningKeyPair {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** `kid:<base64 PKCS#8>`, an entry of CALLBACK_SIGNING_KEYS. */
  setting: string;
}

export function signingKeyPair(kid: string): SigningKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { kid, privateKey, publicKey, setting: `${kid}:${privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64')}` };
}

export function testRedisPrefix(): string {
  return `test-cbw-${randomBytes(6).toString('hex')}`;
}

/**
 * Deletes every key under our prefix: a test file's clean-up on the shared Redis, which serves
 * every test file at once (the Redis-loss tests run a server of their own for a real FLUSHALL).
 */
export async function deleteRedisKeys(prefix: string, url = 'redis://127.0.0.1:6379'): Promise<number> {
  const redis = new IORedis(url, { maxRetriesPerRequest: 3 });
  try {
    let deleted = 0;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.del(...keys);
    } while (cursor !== '0');
    return deleted;
  } finally {
    redis.disconnect();
  }
}

export async function waitUntil(condition: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
