import { ConfigError } from '@gateway/config';
import { CommandFailed, UsageError, type CliIo, type CommandRun } from './command-kit';

export interface CommandSpec {
  /** The words that name it: ['callbacks', 'resend']. */
  words: string[];
  usage: string;
  summary: string;
  /** Loaded on demand, so each command builds (and imports) only what it uses. */
  load: () => Promise<CommandRun>;
}

export const COMMANDS: CommandSpec[] = [
  {
    words: ['migrate'],
    usage: 'gateway migrate [--json]',
    summary: "applies the SQL migrations and the apps' privileges to DATABASE_URL / DATABASE_SCHEMA (the owner's login)",
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
    load: async () => (await import('./commands/keys.js')).keysCommand,
  },
  {
    words: ['story'],
    usage: 'gateway story <ipn_token | tx hash | payment id | callback delivery id | deposit id | address> [--json]',
    summary: 'the whole story of a wallet in order: created, payments, deposits, payout legs, callback attempts',
    load: async () => (await import('./commands/story.js')).storyCommand,
  },
  {
    words: ['callbacks', 'list'],
    usage: 'gateway callbacks list [--status failed|refused] [--limit <n>] [--json]',
    summary:
      "the newest callback deliveries the retries gave up on, failed or refused, with the merchant's last answer (the owner's login)",
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
    load: async () => (await import('./commands/ledger.js')).ledgerExportCommand,
  },
  {
    words: ['callbacks', 'resend'],
    usage: 'gateway callbacks resend <delivery id> [--json]',
    summary: 'puts a failed or refused callback delivery back: pending with a new retry round, and queued now if Redis answers',
    load: async () => (await import('./commands/callbacks.js')).resendCommand,
  },
  {
    words: ['callbacks', 'release'],
    usage: 'gateway callbacks release (<callback URL, exactly as registered> | --list) [--json]',
    summary: "frees a callback URL and its origin and path's claim so it can be registered again (the owner's DATABASE_URL)",
    load: async () => (await import('./commands/callbacks.js')).releaseCommand,
  },
  {
    words: ['deposits', 'replan'],
    usage: 'gateway deposits replan (<deposit id> [--timeout <seconds>] | --list) [--json]',
    summary: "a new payout plan for a deposit that needs attention, once its cause is fixed (the settlement worker's environment)",
    load: async () => (await import('./commands/deposits.js')).replanCommand,
  },
  {
    words: ['dust', 'sweep'],
    usage: 'gateway dust sweep (--all | --wallet <temporary address>) [--force] [--json]',
    summary: "pays out held dust now, one payout per wallet (the settlement worker's environment)",
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
    load: async () => (await import('./commands/restore.js')).restoreCheckCommand,
  },
  {
    words: ['queues'],
    usage: 'gateway queues [--json]',
    summary: 'depth by state and the oldest job of each BullMQ queue (REDIS_URL, REDIS_PREFIX)',
    load: async () => (await import('./commands/queues.js')).queuesCommand,
  },
  {
    words: ['redis', 'acl'],
    usage: 'gateway redis acl [--apply] [--json]',
    summary:
      "each app's Redis user, from the URL it is given (WALLET_CONTROL_REDIS_URL …), limited to its keys under REDIS_PREFIX: " +
      'an aclfile, or --apply on REDIS_URL (an admin)',
    load: async () => (await import('./commands/redis-acl.js')).redisAclCommand,
  },
];

export function helpText(): string {
  const width = Math.max(...COMMANDS.map((command) => command.words.join(' ').length));
  return [
    'usage: gateway <command> [arguments] [--json] [--help]',
    '',
    'commands:',
    ...COMMANDS.map((command) => `  ${command.words.join(' ').padEnd(width)}  ${command.summary}`),
    '',
    'Settings come from the environment, as the apps read them (DATABASE_URL, REDIS_URL, …); `gateway <command> --help` for each.',
    'Exit codes: 0 done, 1 not done (the message says why), 2 usage, 3 replan: cancellations not final yet.',
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
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h' || args[0] === 'help')) {
    io.out(helpText());
    return 0;
  }
  const found = findCommand(args);
  if (!found) {
    const group = COMMANDS.filter((command) => command.words.length > 1 && command.words[0] === args[0]);
    const hint = group.length > 0 ? group.map((command) => `usage: ${command.usage}`).join('\n') : helpText();
    io.err(args.length === 0 ? hint : `gateway: unknown command "${args.join(' ')}"\n${hint}`);
    return 2;
  }
  const { command, rest } = found;
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(`usage: ${command.usage}\n${command.summary}`);
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
