// "The attempts of this wallet", the payments attemptThatPaid (packages/domain) credits a deposit among: a wallet is one
// order, and each Process Payment (or second chance) on it one attempt. The receipt page, Check Payment Status and the
// chain-watcher's time-to-USDC all read them with these fragments, so the three answer the same question the same way.

/** One attempt as attemptThatPaid reads it. */
export interface PaymentAttemptRecord {
  id: string;
  provider: string;
  createdAt: Date;
  /** The transaction its provider reported sending the USDC in; null when it reported none. */
  deliveredTxHash: string | null;
}

/** The columns of an attempt, from the payments row `alias`. */
export function attemptColumns(alias: string): string {
  return `${alias}.id, ${alias}.provider, ${alias}.created_at, ${alias}.provider_tx_hash`;
}

/** An attempt as a JSON object (for json_agg), from the payments row `alias`; readAttempts reads a list of them. */
export function attemptJson(alias: string): string {
  return `json_build_object('id', ${alias}.id, 'provider', ${alias}.provider, 'created_at', ${alias}.created_at,
                            'provider_tx_hash', ${alias}.provider_tx_hash)`;
}

/** What attemptJson gives, as node-postgres hands it back. */
export interface AttemptJson {
  id: string;
  provider: string;
  created_at: string;
  provider_tx_hash: string | null;
}

export function readAttempt(attempt: AttemptJson): PaymentAttemptRecord {
  return {
    id: attempt.id,
    provider: attempt.provider,
    createdAt: new Date(attempt.created_at),
    deliveredTxHash: attempt.provider_tx_hash,
  };
}

export function readAttempts(attempts: readonly AttemptJson[] | null): PaymentAttemptRecord[] {
  return (attempts ?? []).map(readAttempt);
}

// The columns of an attempt alone: the chain-watcher's role may read no others of payments (app-privileges.sql).
const ATTEMPT_COLUMNS = 'id, provider, created_at, provider_tx_hash';

/**
 * The newest `limit` payments of the wallet `walletId` (an SQL expression), those `where` admits, with `columns` (an
 * attempt's, unless more are asked for): one walk of payments_wallet_created_idx backwards, cut at the limit, however
 * many attempts the order has (issue 35).
 */
export function latestAttempts(walletId: string, limit: string | number, where?: string, columns = ATTEMPT_COLUMNS): string {
  return `(SELECT ${columns} FROM payments WHERE wallet_id = ${walletId}${where ? ` AND ${where}` : ''}
           ORDER BY created_at DESC, id DESC LIMIT ${limit})`;
}

/** The payments of the deposit row `deposit`'s wallet whose provider reported its transaction (payments_provider_tx_hash_idx). */
export function attemptsReporting(deposit: string): string {
  return `(SELECT ${ATTEMPT_COLUMNS} FROM payments WHERE provider_tx_hash = ${deposit}.tx_hash AND wallet_id = ${deposit}.wallet_id)`;
}
