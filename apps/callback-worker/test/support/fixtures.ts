import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { Pool } from 'pg';

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
