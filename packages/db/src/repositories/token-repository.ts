import type { Pool } from 'pg';

/** A token on a chain; the address lower-case hex. */
export interface RecordedToken {
  chainId: number;
  address: string;
}

/** The token this database counts in (see migrations 016 and 024), recorded by the first app to boot. */
export class TokenRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Records `token` when the database knows none yet, and says why an app configured with it must
   * not run here (undefined when it may). The recording is the owner's function (migration 024): it
   * records a first token only, one boot at a time, so no app can add a second one.
   */
  async register(token: RecordedToken): Promise<string | undefined> {
    const address = token.address.toLowerCase();
    await this.pool.query('SELECT record_first_token($1, $2)', [token.chainId, address]);
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
