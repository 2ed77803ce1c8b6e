/**
 * The apps of the gateway that have a PostgreSQL role of their own. Migration 014 creates the
 * roles (NOLOGIN: login users are made members of them) and records their names in `app_roles`;
 * migrations/app-privileges.sql grants each what its statements need, and nothing else. The
 * sandbox provider is not one of them: it stands for another company and keeps its orders in a
 * schema of its own, with no grant on the gateway's tables.
 */
export const DATABASE_APPS = ['wallet-control', 'payment-redirect', 'callback-worker', 'chain-watcher', 'settlement-worker'] as const;
export type DatabaseApp = (typeof DATABASE_APPS)[number];

/** Names the roles when DATABASE_ROLE_PREFIX is not set (migration 014 has the same default). */
export const DEFAULT_ROLE_PREFIX = 'gateway';

// Roles are cluster-wide: the prefix keeps two gateways sharing a PostgreSQL cluster apart. The
// longest name, <prefix>_settlement_worker, stays within PostgreSQL's 63 bytes.
const ROLE_PREFIX = /^[a-z_][a-z0-9_]{0,40}$/;

export function isRolePrefix(prefix: string): boolean {
  return ROLE_PREFIX.test(prefix);
}

/** `<prefix>_<app>` with underscores (gateway_wallet_control …), as migration 014 names them. */
export function appRoleName(prefix: string, app: DatabaseApp): string {
  if (!isRolePrefix(prefix)) throw new Error(`invalid role prefix "${prefix}": lower-case letters, digits and _, at most 41`);
  return `${prefix}_${app.replaceAll('-', '_')}`;
}
