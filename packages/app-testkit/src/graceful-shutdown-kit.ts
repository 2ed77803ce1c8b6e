import type { Pool, PoolClient } from 'pg';
import { killStartedApps, type startAppProcess } from '@gateway/testkit';

/** An app process started by startAppProcess. */
export type AppRun = ReturnType<typeof startAppProcess>;

/** The settings that have an app run as deployed listen (API and metrics) on free ports of its own. */
export const FREE_PORTS_ENV = { HOST: '127.0.0.1', PORT: '0', METRICS_HOST: '127.0.0.1', METRICS_PORT: '0' };

/** A table locked in SHARE MODE by a transaction of its own: every insert into it waits until it is released. */
export interface TableLock {
  release(): Promise<void>;
}

export interface ShutdownTest {
  /** Locks `table`; released after the test, whatever it did. */
  lock(table: string): Promise<TableLock>;
  /**
   * Once the requests are sent: waits until one of them waits on the lock (its statement LIKE
   * `statementLike`; `what` names the request in the failure), then until the last ones are accepted
   * (one still in the listen backlog at SIGTERM was never in flight).
   */
  blocked(statementLike: string, what: string): Promise<void>;
  /** SIGTERM, then the lock released shortly after: the process shuts down with the requests still running. */
  sigterm(run: AppRun, lock: TableLock): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What a test of an API app's SIGTERM with requests in flight stands on (a rolling deploy): the
 * process run as deployed (main.ts), the table its requests insert into locked so that every
 * request is still running when SIGTERM comes. Registers the file's afterEach: the lock released
 * and every app started killed. `pool`: the test's own pool (the fixture's, once its beforeAll ran).
 */
export function useShutdownTest(pool: () => Pool): ShutdownTest {
  let held: TableLock | undefined;
  afterEach(async () => {
    await held?.release().catch(() => undefined);
    held = undefined;
    killStartedApps();
  });
  return {
    async lock(table) {
      const client: PoolClient = await pool().connect();
      await client.query('BEGIN');
      await client.query(`LOCK TABLE ${table} IN SHARE MODE`);
      let released = false;
      held = {
        release: async () => {
          if (released) return;
          released = true;
          await client.query('COMMIT');
          client.release();
        },
      };
      return held;
    },
    async blocked(statementLike, what) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const { rows } = await pool().query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
          [statementLike],
        );
        if ((rows[0]?.n ?? 0) > 0) break;
        if (Date.now() > deadline) throw new Error(`no ${what} reached its insert`);
        await sleep(25);
      }
      await sleep(500);
    },
    async sigterm(run, lock) {
      run.child.kill('SIGTERM');
      await sleep(300);
      await lock.release();
    },
  };
}

/** Log lines at warn or above (pino levels 40+) from the shutdown on (warnings at boot, such as the sandbox's, are expected). */
export function shutdownProblems(stdout: string): string[] {
  const shutdown = stdout.indexOf('"msg":"shutting down"');
  expect(shutdown).toBeGreaterThan(-1);
  return stdout
    .slice(shutdown)
    .split('\n')
    .filter((line) => /"level":(4|5|6)0/.test(line));
}
