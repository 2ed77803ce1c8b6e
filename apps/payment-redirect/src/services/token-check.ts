import { ConfigError } from '@gateway/config';
import { isDatabaseReachable, TokenRepository, type RecordedToken } from '@gateway/db/payment-redirect';
import type { FastifyBaseLogger } from 'fastify';
import type { Pool } from 'pg';

/**
 * The providers buy the token the database counts in (migration 016): another one refuses to
 * boot. payment-redirect also starts while PostgreSQL is away (not ready): it then checks the
 * token the first time the database answers, and is not ready while the token is another.
 */
export class TokenCheck {
  private readonly tokens: TokenRepository;
  private checked = false;

  constructor(
    private readonly pool: Pool,
    private readonly token: RecordedToken,
  ) {
    this.tokens = new TokenRepository(pool);
  }

  /** Refuses another token where PostgreSQL answers at boot. */
  async atBoot(): Promise<void> {
    if (!(await isDatabaseReachable(this.pool))) return;
    const otherToken = await this.tokens.register(this.token);
    if (otherToken) throw new ConfigError([`USDC_TOKEN_ADDRESS: ${otherToken}`]);
    this.checked = true;
  }

  /** The readiness of PostgreSQL: it answers, and counts in this token. */
  async ready(log: FastifyBaseLogger): Promise<boolean> {
    if (!(await isDatabaseReachable(this.pool))) return false;
    if (!this.checked) {
      const otherToken = await this.tokens.register(this.token);
      if (otherToken) log.error(`USDC_TOKEN_ADDRESS: ${otherToken}; not ready`);
      this.checked = otherToken === undefined;
    }
    return this.checked;
  }
}
