// What every app shares: the pool, the migrations, the apps' roles and the statement helpers. The
// repositories are reached through each app's own entry point (src/apps/), which exports only those
// its PostgreSQL role may run (app-privileges.sql).
export * from './pool';
export * from './app-roles';
export * from './app-login-users';
export * from './migrate';
export * from './in-transaction';
export * from './statement-batcher';
