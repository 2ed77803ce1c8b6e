import { createHash } from 'node:crypto';
import { Client } from 'pg';

export interface LeaderLockOptions {
  connectionString: string;
  /** Derives the lock key: one leader per database schema, chain and token. */
  scope: { schema: string; chainId: number; token: string };
}

// A lock session that cannot answer `SELECT 1` within this is treated as gone.
const PING_TIMEOUT_MS = 5_000;
// The server probes the leader's TCP peer too, so a leader whose host vanished without closing
// its connection frees the lock within about 25 s instead of the kernel's default two hours.
const SERVER_KEEPALIVE = '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3';

/** A signed 64-bit advisory lock key (as a decimal string) for one watcher scope. */
export function leaderLockKey(scope: LeaderLockOptions['scope']): string {
  const digest = createHash('sha256').update(`chain-watcher\n${scope.schema}\n${scope.chainId}\n${scope.token.toLowerCase()}`).digest();
  return BigInt.asIntN(64, digest.readBigUInt64BE(0)).toString();
}

export class LeadershipLostError extends Error {
  constructor(cause?: unknown) {
    super('the leader lock session ended', { cause });
    this.name = 'LeadershipLostError';
  }
}

/**
 * Leadership is a PostgreSQL session-level advisory lock held on a connection of its own: when
 * the leading process dies or its connection drops, PostgreSQL ends the session, the lock frees,
 * and a standby's next try takes it. Nothing to expire, no clock to trust. (It needs a direct
 * session: a transaction-pooling proxy such as PgBouncer in transaction mode cannot hold it.)
 */
export class LeaderLock {
  private client: Client | undefined;
  private leading = false;
  private sessionPid: number | undefined;
  private readonly key: string;

  constructor(private readonly options: LeaderLockOptions) {
    this.key = leaderLockKey(options.scope);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** PostgreSQL backend pid of the lock's session while leading (what an operator would terminate). */
  get leaderSessionPid(): number | undefined {
    return this.leading ? this.sessionPid : undefined;
  }

  /** Takes the lead if it is free; true when this instance leads afterwards. */
  async tryAcquire(): Promise<boolean> {
    if (this.leading) return true;
    const client = await this.connect();
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [this.key]);
    this.leading = rows[0]?.locked === true && this.client === client;
    return this.leading;
  }

  /** Throws unless the lock's session is still alive (a leader checks before each round). */
  async confirm(): Promise<void> {
    const client = this.client;
    if (!this.leading || !client) throw new LeadershipLostError();
    try {
      await client.query('SELECT 1');
    } catch (error) {
      this.lose(client);
      throw new LeadershipLostError(error);
    }
  }

  /** Gives the lead up (if held) and closes the lock's connection. */
  async release(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.leading = false;
    if (!client) return;
    await client.query('SELECT pg_advisory_unlock($1::bigint)', [this.key]).catch(() => undefined);
    await client.end().catch(() => undefined);
  }

  private async connect(): Promise<Client> {
    if (this.client) return this.client;
    const client = new Client({
      connectionString: this.options.connectionString,
      application_name: 'chain-watcher-leader',
      keepAlive: true,
      options: SERVER_KEEPALIVE,
      connectionTimeoutMillis: 5_000,
      query_timeout: PING_TIMEOUT_MS,
    });
    client.on('error', () => this.lose(client));
    client.on('end', () => this.lose(client));
    try {
      await client.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      this.sessionPid = rows[0]?.pid;
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.client = client;
    return client;
  }

  /** The session is gone (or unusable): so is the lock it held. */
  private lose(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.leading = false;
    client.end().catch(() => undefined);
  }
}
