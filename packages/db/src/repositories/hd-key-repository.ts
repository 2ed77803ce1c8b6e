import type { Pool } from 'pg';

/** The HD key the temporary wallets are derived from, by BIP-32 fingerprint (see migration 009). */
export class HdKeyRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Registers `fingerprint` when the database knows no key yet, and returns every key it knows.
   * Two first boots with different keys both register and both see two keys, so both refuse.
   */
  async registerAndList(fingerprint: string): Promise<string[]> {
    await this.pool.query(`INSERT INTO hd_keys (fingerprint) SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM hd_keys) ON CONFLICT DO NOTHING`, [
      fingerprint,
    ]);
    return this.list();
  }

  async list(): Promise<string[]> {
    const { rows } = await this.pool.query<{ fingerprint: string }>('SELECT fingerprint FROM hd_keys ORDER BY registered_at');
    return rows.map((row) => row.fingerprint);
  }
}
