import { loadConfig } from '@gateway/config';
import { createPool, migrate } from '@gateway/db/cli';
import { postgresVersionProblem } from '@gateway/domain';
import { CommandFailed, parseCommandArgs, toJson, UsageError, type CliIo } from '../command-kit';
import { databaseCommandSettings } from '../database';

/**
 * `gateway migrate`: the numbered migrations in order, then the apps' privileges, with the owner's login,
 * on a PostgreSQL the gateway supports.
 */
export async function migrateCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {});
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const raw = loadConfig(databaseCommandSettings, io.env);
  // No statement timeout of the pool's: migrate() lifts it for its own session anyway.
  const pool = createPool({
    connectionString: raw.DATABASE_URL,
    schema: raw.DATABASE_SCHEMA,
    max: 1,
    applicationName: 'gateway-cli-migrate',
  });
  try {
    // The first command of a deployment: a server the apps would refuse (SERVER_REQUIREMENTS) is refused before anything is written.
    const { rows } = await pool.query<{ server_version: string }>('SHOW server_version');
    const problem = postgresVersionProblem(rows[0]?.server_version ?? '');
    if (problem !== undefined) throw new CommandFailed(problem);
    const applied = await migrate(pool, raw.DATABASE_SCHEMA, { rolePrefix: raw.DATABASE_ROLE_PREFIX });
    if (values.json) io.out(toJson({ schema: raw.DATABASE_SCHEMA, applied }));
    else io.out(applied.length > 0 ? `applied ${applied.join(', ')}` : 'database schema is up to date');
    return 0;
  } finally {
    await pool.end();
  }
}
