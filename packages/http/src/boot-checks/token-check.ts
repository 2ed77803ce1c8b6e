import type { FastifyBaseLogger } from 'fastify';
import type { Pool } from 'pg';
import { ConfigError } from '@gateway/config';
import { isDatabaseReachable } from '@gateway/db';

/** A token on a chain, as the app is configured with it. */
export interface ConfiguredToken {
  chainId: number;
  address: string;
}

export interface TokenCheckOptions {
  /**
   * The app's own TokenRepository (`@gateway/db/<app>`), so the token is recorded and read as the
   * app's PostgreSQL role: why the app must not run here, undefined when it may.
   */
  tokens: { register(token: ConfiguredToken): Promise<string | undefined> };
  token: ConfiguredToken;
  /** What the chain says is wrong with the token (its decimals), asked first; left out by the apps that read no chain. */
  onChain?: () => Promise<string | undefined>;
}

async function tokenProblem({ tokens, token, onChain }: TokenCheckOptions): Promise<string | undefined> {
  return (await onChain?.()) ?? (await tokens.register(token));
}

/**
 * Refuses to run with a token the gateway cannot count in (on chain: decimals() is not 6), or with
 * another token than the one this database counts in (recorded by the first app to boot, migrations
 * 016 and 024): every amount would be read in the wrong token.
 */
export async function assertTokenCounted(options: TokenCheckOptions): Promise<void> {
  const problem = await tokenProblem(options);
  if (problem) throw new ConfigError([`USDC_TOKEN_ADDRESS: ${problem}`]);
}

/**
 * The same check for an app that starts while PostgreSQL is away (payment-redirect, which is then
 * not ready): at boot where the database answers, otherwise the first time it does; until the
 * token passes, PostgreSQL is not ready.
 */
export class TokenCheckWhenReachable {
  private checked = false;

  constructor(
    private readonly pool: Pool,
    private readonly options: TokenCheckOptions,
  ) {}

  /** Refuses another token where PostgreSQL answers at boot. */
  async atBoot(): Promise<void> {
    if (!(await isDatabaseReachable(this.pool))) return;
    await assertTokenCounted(this.options);
    this.checked = true;
  }

  /** The readiness of PostgreSQL: it answers, and counts in this token. */
  async ready(log: FastifyBaseLogger): Promise<boolean> {
    if (!(await isDatabaseReachable(this.pool))) return false;
    if (!this.checked) {
      const problem = await tokenProblem(this.options);
      if (problem) log.error(`USDC_TOKEN_ADDRESS: ${problem}; not ready`);
      this.checked = problem === undefined;
    }
    return this.checked;
  }
}
