import {
  chainIdentitySettings,
  chainRpcSettings,
  ConfigError,
  databaseSettings,
  otherUsdcSettings,
  redisSettings,
  runtimeSettings,
} from '@gateway/config';
import { CommandFailed, UsageError, type CliIo, type CommandRun } from './command-kit';

export interface CommandSpec {
  /** The words that name it: ['callbacks', 'resend']. */
  words: string[];
  usage: string;
  summary: string;
  /**
   * The environment variables it reads (each also as `<NAME>_FILE`), taken from the settings of
   * @gateway/config where they are defined there; [] for a command that reads none. The CLI's help
   * test checks each against the schemas that define it.
   */
  settings: readonly string[];
  /** What the settings leave out, when the command loads a whole app's configuration. */
  settingsNote?: string;
  /** Every exit code it can end with and what it means (0 and 2 included). */
  exitCodes: Readonly<Record<number, string>>;
  /** One command line that runs as written, given the settings. */
  example: string;
  /** Loaded on demand, so each command builds (and imports) only what it uses. */
  load: () => Promise<CommandRun>;
}

const names = (...groups: object[]): string[] => groups.flatMap((group) => Object.keys(group));
const DATABASE = names(runtimeSettings, databaseSettings);
const REDIS = names(redisSettings);
// What the settlement worker's configuration holds that the operator most needs to get right; the
// commands load all of it (apps/settlement-worker/src/config.ts).
const SETTLEMENT = [
  ...DATABASE,
  ...REDIS,
  ...names(chainRpcSettings, chainIdentitySettings, otherUsdcSettings),
  'SETTLEMENT_MNEMONIC',
  'RELAYER_PRIVATE_KEY',
  'PLATFORM_FEE_ADDRESS',
];
const SETTLEMENT_NOTE = "and every other setting of the settlement worker (docs/configuration.md): it loads the worker's configuration";

const DONE = 'done';
const USAGE = 'bad arguments: the message and the usage on stderr';
const notRun = (servers: string) => `a setting is missing or wrong, or ${servers} did not answer: the first line on stderr says which`;

export const COMMANDS: CommandSpec[] = [
  {
    words: ['migrate'],
    usage: 'gateway migrate [--json]',
    summary: "applies the SQL migrations and the apps' privileges to DATABASE_URL / DATABASE_SCHEMA (the owner's login)",
    settings: DATABASE,
    exitCodes: {
      0: `${DONE}: migrated, or already up to date`,
      1: `PostgreSQL is older than the gateway supports (nothing written); or ${notRun('PostgreSQL')}`,
      2: USAGE,
    },
    example: 'DATABASE_URL=postgres://gateway_owner@db.internal:5432/gateway gateway migrate',
    load: async () => (await import('./commands/migrate.js')).migrateCommand,
  },
  {
    words: ['keys'],
    usage:
      'gateway keys (seed | sealing [kid] | callback [kid] | admin | db-logins [--prefix <p>] [--database-url <url>]) ' +
      '[--out <file> | --out-dir <folder>] [--force] [--json]',
    summary:
      'new secrets, to stdout or new files of mode 0600 (--out, --out-dir): settlement seed and its xpub, address_in sealing key, callback ' +
      'key pair, admin token, app logins',
    settings: [],
    exitCodes: {
      0: `${DONE}: the secrets are on stdout or in the new files`,
      1: 'a file of --out or --out-dir exists (give --force to replace it)',
      2: USAGE,
    },
    example: 'gateway keys seed --out-dir ./secrets',
    load: async () => (await import('./commands/keys.js')).keysCommand,
  },
  {
    words: ['story'],
    usage: 'gateway story <ipn_token | tx hash | payment id | callback delivery id | deposit id | address> [--json]',
    summary: 'the whole story of a wallet in order: created, payments, deposits, payout legs, callback attempts',
    settings: DATABASE,
    exitCodes: {
      0: `${DONE}: the story is on stdout`,
      1: `nothing in this gateway matches what was given; or ${notRun('PostgreSQL')}`,
      2: USAGE,
    },
    example: 'gateway story 0x52908400098527886E0F7030069857D2E4169EE7',
    load: async () => (await import('./commands/story.js')).storyCommand,
  },
  {
    words: ['callbacks', 'list'],
    usage: 'gateway callbacks list [--status failed|refused] [--limit <n>] [--json]',
    summary:
      "the newest callback deliveries the retries gave up on, failed or refused, with the merchant's last answer (the owner's login)",
    settings: DATABASE,
    exitCodes: { 0: `${DONE}: the deliveries (none is no error) are on stdout`, 1: notRun('PostgreSQL'), 2: USAGE },
    example: 'gateway callbacks list --status failed --limit 20',
    load: async () => (await import('./commands/callbacks.js')).listCommand,
  },
  {
    words: ['ledger', 'export'],
    usage:
      'gateway ledger export --payout-address <0x…> --from <YYYY-MM-DD | ISO time> --to <YYYY-MM-DD | ISO time> [--format csv|json] ' +
      '[--out <file>]',
    summary:
      "a merchant's ledger: each order of a payout address created in [from, to), its deposits, payouts, callback and state, as CSV " +
      "or JSON Lines (the owner's DATABASE_URL; docs/ledger.md)",
    settings: DATABASE,
    exitCodes: {
      0: `${DONE}: the ledger is on stdout or in --out, written whole`,
      1: `the payout address is not one of this gateway's wallets (no file written); or ${notRun('PostgreSQL')}`,
      2: `${USAGE}; a bad --from, --to or --format is named as the admin endpoint names it`,
    },
    example:
      'gateway ledger export --payout-address 0x52908400098527886E0F7030069857D2E4169EE7 --from 2026-11-01 --to 2026-12-01 --out november.csv',
    load: async () => (await import('./commands/ledger.js')).ledgerExportCommand,
  },
  {
    words: ['callbacks', 'resend'],
    usage: 'gateway callbacks resend <delivery id> [--json]',
    summary: 'puts a failed or refused callback delivery back: pending with a new retry round, and queued now if Redis answers',
    settings: [...DATABASE, ...REDIS],
    exitCodes: {
      0: `${DONE}: pending again (queued, or left to the reconciler when Redis did not answer)`,
      1: `no such delivery, or it is not failed or refused; or ${notRun('PostgreSQL or Redis')}`,
      2: USAGE,
    },
    example: 'gateway callbacks resend 6f1c0a52-0000-4000-8000-000000000003',
    load: async () => (await import('./commands/callbacks.js')).resendCommand,
  },
  {
    words: ['callbacks', 'release'],
    usage: 'gateway callbacks release (<callback URL, exactly as registered> | --list) [--json]',
    summary: "frees a callback URL and its origin and path's claim so it can be registered again (the owner's DATABASE_URL)",
    settings: DATABASE,
    exitCodes: {
      0: `${DONE}: released (or, with --list, the claims are on stdout)`,
      1: `no wallet and no claim holds that callback; or ${notRun('PostgreSQL')}`,
      2: USAGE,
    },
    example: 'gateway callbacks release --list',
    load: async () => (await import('./commands/callbacks.js')).releaseCommand,
  },
  {
    words: ['deposits', 'replan'],
    usage: 'gateway deposits replan (<deposit id> [--timeout <seconds>] | --list) [--json]',
    summary: "a new payout plan for a deposit that needs attention, once its cause is fixed (the settlement worker's environment)",
    settings: SETTLEMENT,
    settingsNote: SETTLEMENT_NOTE,
    exitCodes: {
      0: `${DONE}: re-planned and queued (or, with --list, the deposits are on stdout)`,
      1: `no such deposit, it is being settled now, or nothing of it needs attention; or ${notRun("PostgreSQL, Redis or the chain's RPC node")}`,
      2: USAGE,
      3: 'the cancellations of its legs are not final yet: run it again',
    },
    example: 'gateway deposits replan --list',
    load: async () => (await import('./commands/deposits.js')).replanCommand,
  },
  {
    words: ['deposits', 'paid-by-hand'],
    usage: 'gateway deposits paid-by-hand (<deposit id> --tx <transaction hash> | --list) [--json]',
    summary:
      'records a payout the operator made by hand of a deposit held for it (the other USDC), once the chain shows it: ' +
      "final, from the deposit's temporary wallet to its payout address (the settlement worker's environment)",
    settings: SETTLEMENT,
    settingsNote: SETTLEMENT_NOTE,
    exitCodes: {
      0: `${DONE}: recorded as paid by the operator (or, with --list, the held deposits are on stdout)`,
      1:
        'no such deposit, it is not held for the operator, or the transaction is unknown, reverted, not final yet, does not pay ' +
        `it out, or is recorded for another deposit; or ${notRun("PostgreSQL or the chain's RPC node")}`,
      2: USAGE,
    },
    example: 'gateway deposits paid-by-hand --list',
    load: async () => (await import('./commands/paid-by-hand.js')).paidByHandCommand,
  },
  {
    words: ['dust', 'sweep'],
    usage: 'gateway dust sweep (--all | --wallet <temporary address>) [--force] [--json]',
    summary: "pays out held dust now, one payout per wallet (the settlement worker's environment)",
    settings: SETTLEMENT,
    settingsNote: SETTLEMENT_NOTE,
    exitCodes: {
      0: `${DONE}: the held dust is planned for payout (the wallets are on stdout)`,
      1: `no such temporary wallet; or ${notRun("PostgreSQL, Redis or the chain's RPC node")}`,
      2: USAGE,
    },
    example: 'gateway dust sweep --all',
    load: async () => (await import('./commands/dust.js')).sweepCommand,
  },
  {
    words: ['restore', 'check'],
    usage: 'gateway restore check [--from-block <n>] [--hd-gap <n>] [--json]',
    summary:
      'a restored database against the chain, before the workers start on it: legs paid on chain it holds as unpaid, payouts it does ' +
      "not know, deposits after its watcher checkpoint, wallets created after the backup (with HD_XPUB), callbacks in the backup's " +
      "state; exit 0 nothing found, 4 findings, 1 not checked (the owner's DATABASE_URL, CHAIN_RPC_URL, CHAIN_ID, USDC_TOKEN_ADDRESS; " +
      'docs/operations.md)',
    settings: [...DATABASE, ...names(chainRpcSettings, chainIdentitySettings), 'HD_XPUB'],
    settingsNote: 'HD_XPUB is optional: without it, wallets created after the backup are not looked for',
    exitCodes: {
      0: 'nothing found: the database knows everything the chain shows of it',
      1: `${notRun("PostgreSQL or the chain's RPC node")}; or CHAIN_RPC_URL answers another chain than CHAIN_ID`,
      2: USAGE,
      4: 'findings: each with what to do, on stdout (docs/operations.md, Backups and restores)',
    },
    example: 'gateway restore check --json',
    load: async () => (await import('./commands/restore.js')).restoreCheckCommand,
  },
  {
    words: ['queues'],
    usage: 'gateway queues [--json]',
    summary: 'depth by state and the oldest job of each BullMQ queue (REDIS_URL, REDIS_PREFIX)',
    settings: REDIS,
    exitCodes: { 0: `${DONE}: the queues are on stdout`, 1: notRun('Redis'), 2: USAGE },
    example: 'gateway queues --json',
    load: async () => (await import('./commands/queues.js')).queuesCommand,
  },
  {
    words: ['redis', 'acl'],
    usage: 'gateway redis acl [--apply] [--json]',
    summary:
      "each app's Redis user, from the URL it is given (WALLET_CONTROL_REDIS_URL …), limited to its keys under REDIS_PREFIX: " +
      'an aclfile, or --apply on REDIS_URL (an admin)',
    settings: [
      ...REDIS,
      'WALLET_CONTROL_REDIS_URL',
      'PAYMENT_REDIRECT_REDIS_URL',
      'CHAIN_WATCHER_REDIS_URL',
      'SETTLEMENT_WORKER_REDIS_URL',
      'CALLBACK_WORKER_REDIS_URL',
      'OPERATOR_REDIS_URL',
    ],
    exitCodes: {
      0: `${DONE}: the aclfile is on stdout, or the users are made (--apply)`,
      1: `the user of REDIS_URL may not ACL SETUSER (--apply); or ${notRun('Redis')}`,
      2: `${USAGE}; also a Redis URL that names no user or a password under 16 characters, or two apps sharing one user`,
    },
    example: 'gateway redis acl --apply',
    load: async () => (await import('./commands/redis-acl.js')).redisAclCommand,
  },
];

/** `gateway <command> --help`: its usage, what it does, the settings it reads, its exit codes and an example. */
export function commandHelp(command: CommandSpec): string {
  const settings = command.settings.length === 0 ? 'none: everything comes from its arguments' : command.settings.join(', ');
  return [
    `usage: ${command.usage}`,
    command.summary,
    '',
    `settings (environment variables, each also as <NAME>_FILE): ${settings}${command.settingsNote ? `; ${command.settingsNote}` : ''}`,
    'exit codes:',
    ...Object.entries(command.exitCodes).map(([code, meaning]) => `  ${code}  ${meaning}`),
    'example:',
    `  ${command.example}`,
  ].join('\n');
}

/** `gateway <group> --help`: the help of each command of the group. */
function groupHelp(group: string, commands: readonly CommandSpec[]): string {
  return [`gateway ${group}: ${commands.map((command) => command.words.join(' ')).join(', ')}`, ...commands.map(commandHelp)].join('\n\n');
}

const isHelp = (arg: string | undefined) => arg === '--help' || arg === '-h';

export function helpText(): string {
  const width = Math.max(...COMMANDS.map((command) => command.words.join(' ').length));
  return [
    'usage: gateway <command> [arguments] [--json] [--help]',
    '',
    'commands:',
    ...COMMANDS.map((command) => `  ${command.words.join(' ').padEnd(width)}  ${command.summary}`),
    '',
    'Settings come from the environment, as the apps read them (DATABASE_URL, REDIS_URL, …); `gateway <command> --help` (or',
    '`gateway <group> --help`, e.g. `gateway callbacks --help`) names the settings, exit codes and an example of each.',
    'Exit codes: 0 done, 1 not done (the message says why), 2 usage, 3 replan: cancellations not final yet, 4 restore check: findings.',
  ].join('\n');
}

function findCommand(args: readonly string[]): { command: CommandSpec; rest: string[] } | undefined {
  for (const command of COMMANDS) {
    if (command.words.every((word, index) => args[index] === word)) return { command, rest: args.slice(command.words.length) };
  }
  return undefined;
}

/** Runs `gateway <args>`; resolves with the exit code. */
export async function runCli(args: string[], io: CliIo): Promise<number> {
  if (args.length === 1 && (isHelp(args[0]) || args[0] === 'help')) {
    io.out(helpText());
    return 0;
  }
  const found = findCommand(args);
  if (!found) {
    const group = COMMANDS.filter((command) => command.words.length > 1 && command.words[0] === args[0]);
    if (group.length > 0 && args.length === 2 && isHelp(args[1])) {
      io.out(groupHelp(args[0]!, group));
      return 0;
    }
    const hint = group.length > 0 ? group.map((command) => `usage: ${command.usage}`).join('\n') : helpText();
    io.err(args.length === 0 ? hint : `gateway: unknown command "${args.join(' ')}"\n${hint}`);
    return 2;
  }
  const { command, rest } = found;
  if (rest.some(isHelp)) {
    io.out(commandHelp(command));
    return 0;
  }
  try {
    return await (await command.load())(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`gateway ${command.words.join(' ')}: ${error.message}\nusage: ${command.usage}`);
      return 2;
    }
    if (error instanceof CommandFailed) {
      io.err(`gateway ${command.words.join(' ')}: ${error.message}`);
      return error.code;
    }
    // Settings missing or wrong, or a service down: the first line says it; no stack trace for an operator.
    const message = error instanceof ConfigError ? error.message : (error as Error).message.split('\n')[0];
    io.err(`gateway ${command.words.join(' ')}: ${message}`);
    return 1;
  }
}
