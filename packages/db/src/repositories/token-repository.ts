import type { Pool } from 'pg';

/** A token on a chain; the address lower-case hex. */
export interface RecordedToken {
  chainId: number;
  address: string;
}

/** The token this database counts in (see migration 016), recorded by the first app to boot. */
export class TokenRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Records `token` when the database knows none yet, and says why an app configured with it must
   * not run here (undefined when it may). Two first boots with different tokens both record and
   * both see two tokens, so both refuse.
   */
  async register(token: RecordedToken): Promise<string | undefined> {
    const address = token.address.toLowerCase();
    await this.pool.query(
      `INSERT INTO chain_tokens (chain_id, address) SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM chain_tokens) ON CONFLICT DO NOTHING`,
      [token.chainId, address],
    );
    const known = await this.list();
    if (known.length === 1 && known[0]!.chainId === token.chainId && known[0]!.address === address) return undefined;
    const recorded = known.map((other) => `${other.address} on chain ${other.chainId}`).join(', ');
    return (
      `${address} on chain ${token.chainId} is not the token this database counts in (${recorded}); configure that token and ` +
      `chain, or use another database`
    );
  }

  async list(): Promise<RecordedToken[]> {
    const { rows } = await this.pool.query<{ chainId: number; address: string }>(
      'SELECT chain_id AS "chainId", address FROM chain_tokens ORDER BY registered_at, address',
    );
    return rows;
  }
}
