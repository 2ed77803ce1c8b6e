// What every command is written with: where it writes, how it fails, its arguments, its JSON. A file of
// its own, so the commands, which cli.ts loads, never import cli.ts back.
import { parseArgs } from 'node:util';

/** Where a command writes: stdout for results (and secrets, never a log), stderr for errors. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** stdout as a stream, for a result too large to hold (`gateway ledger export`): written with backpressure. */
  stdout: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** Bad arguments: the message and the command's usage go to stderr, exit 2. */
export class UsageError extends Error {}

/** A command that ran and could not do what was asked (unknown id, wrong state): its message, exit `code`. */
export class CommandFailed extends Error {
  constructor(
    message: string,
    readonly code = 1,
  ) {
    super(message);
  }
}

export type CommandRun = (args: string[], io: CliIo) => Promise<number>;

type OptionSpecs = Record<string, { type: 'string' | 'boolean' }>;

/** "-eX7…": one dash, then more than one character. */
const SINGLE_DASH_WORD = /^-[^-].+$/;
type OptionValues<T extends OptionSpecs> = { [K in keyof T]?: T[K]['type'] extends 'string' ? string : boolean } & { json?: boolean };

/**
 * node:util parseArgs (every command takes --json), its errors (an unknown option, a missing value)
 * as usage errors. No command has a short option, so a word of one dash and more than one letter is
 * a value: an ipn_token is base64url and one in 64 starts with "-" (`gateway story -eX…` looked like
 * an unknown option -e).
 */
export function parseCommandArgs<T extends OptionSpecs>(args: string[], options: T): { values: OptionValues<T>; positionals: string[] } {
  const end = args.indexOf('--');
  const [head, tail] = end === -1 ? [args, []] : [args.slice(0, end), args.slice(end + 1)];
  // Such words go after "--", behind the other values: no command takes two values where the order could then change.
  // A word after an option that takes a value is that option's, as parseArgs reads it (its own errors included).
  const isDashWord = (arg: string, index: number) =>
    SINGLE_DASH_WORD.test(arg) && options[(head[index - 1] ?? '').replace(/^--/, '')]?.type !== 'string';
  const dashWords = head.filter(isDashWord);
  try {
    const { values, positionals } = parseArgs({
      args:
        dashWords.length === 0 && end === -1
          ? args
          : [...head.filter((arg, index) => !isDashWord(arg, index)), '--', ...dashWords, ...tail],
      options: { ...options, json: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as OptionValues<T>, positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** JSON for machines: bigints (USDC base units) as strings, dates as ISO 8601. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item), 2);
}
