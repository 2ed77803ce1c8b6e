import type { PoolClient } from 'pg';
import { callbackOriginPath, callbackPathKey } from '@gateway/domain';

const BATCH = 5_000;

/**
 * Migration 025's code step: recomputes every callback path claim with callbackOriginPath from its
 * stored canonical form (the rule is its own canonical form, so this is the claim of every URL that
 * had the old one), releases the later of live claims that became one, with the callbacks of their
 * wallets whose terms are not the first claim's, and stores the new keys. A stored path the parser
 * no longer reads (none should exist) keeps its key.
 */
export async function rekeyCallbackPaths(client: PoolClient): Promise<void> {
  let after = '0';
  for (;;) {
    const { rows } = await client.query<{ id: string; callback_path: string; path_key: Buffer }>(
      'SELECT id::text, callback_path, path_key FROM callback_paths WHERE id > $1::bigint ORDER BY id LIMIT $2',
      [after, BATCH],
    );
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.id;
    const rekeyed = rows.map((row) => {
      try {
        const path = callbackOriginPath(row.callback_path);
        return { id: row.id, key: callbackPathKey(path), path };
      } catch {
        return { id: row.id, key: row.path_key, path: row.callback_path };
      }
    });
    await client.query(
      'INSERT INTO callback_path_rekeys (id, path_key, callback_path) SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::text[])',
      [rekeyed.map((claim) => claim.id), rekeyed.map((claim) => claim.key), rekeyed.map((claim) => claim.path)],
    );
  }
  // First the later claims leave the live index, so no live claim ever holds another's key.
  await client.query(
    `WITH live AS (
       SELECT p.id, min(p.id) OVER (PARTITION BY r.path_key) AS first_id
       FROM callback_paths p JOIN callback_path_rekeys r USING (id) WHERE p.released_at IS NULL),
     later AS (
       UPDATE callback_paths p SET released_at = now() FROM live
       WHERE p.id = live.id AND live.id <> live.first_id
       RETURNING p.id, p.terms, live.first_id)
     UPDATE wallets w SET callback_released_at = now(), dedupe_key = NULL
     FROM later JOIN callback_paths first ON first.id = later.first_id
     WHERE w.callback_path_id = later.id AND w.callback_released_at IS NULL AND later.terms <> first.terms`,
  );
  await client.query(
    `UPDATE callback_paths p SET path_key = r.path_key, callback_path = r.callback_path
     FROM callback_path_rekeys r WHERE p.id = r.id AND (p.path_key, p.callback_path) IS DISTINCT FROM (r.path_key, r.callback_path)`,
  );
}
