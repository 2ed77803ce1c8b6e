import { Client } from 'pg';
import { appRoleName, DATABASE_APPS, DEFAULT_ROLE_PREFIX, type DatabaseApp } from './app-roles';

/**
 * `<prefix>_<app>_login`: the login user of an app, a member of its role only: what `gateway keys
 * db-logins` makes for a deployment, and what the local stack and the tests make for theirs.
 */
export function appLoginUser(app: DatabaseApp, prefix = DEFAULT_ROLE_PREFIX): string {
  return `${appRoleName(prefix, app)}_login`;
}

/**
 * What an operator does once per cluster, for the local stack and the tests: a login user per app,
 * a member of its app's role (migration 014 creates the roles; run the migrations first) and of
 * nothing else, with no privileges of its own, NOINHERIT: it has its role's privileges only while
 * it is that role (the app's pool takes it at connect), so a session that leaves it (SET ROLE NONE)
 * can do nothing. A user an earlier version made inheriting is made NOINHERIT. Without a password:
 * these clusters trust local connections. Safe to run concurrently and again. Returns each app's
 * connection string for `databaseUrl` (same host and database, the app's user).
 */
export async function ensureAppLoginUsers(
  adminUrl: string,
  databaseUrl: string,
  prefix = DEFAULT_ROLE_PREFIX,
): Promise<Record<DatabaseApp, string>> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    for (const app of DATABASE_APPS) {
      // One statement, so the user never exists without its membership; a concurrent creator wins.
      await admin.query(`DO $$ BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${appLoginUser(app, prefix)}') THEN
            CREATE ROLE "${appLoginUser(app, prefix)}" LOGIN NOINHERIT IN ROLE "${appRoleName(prefix, app)}";
          ELSIF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${appLoginUser(app, prefix)}' AND rolinherit) THEN
            ALTER ROLE "${appLoginUser(app, prefix)}" NOINHERIT;
          END IF;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END $$`);
    }
  } finally {
    await admin.end();
  }
  const urls = {} as Record<DatabaseApp, string>;
  for (const app of DATABASE_APPS) {
    const url = new URL(databaseUrl);
    url.username = appLoginUser(app, prefix);
    url.password = '';
    urls[app] = url.toString();
  }
  return urls;
}
