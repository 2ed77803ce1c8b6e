import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CommandFailed } from './command-kit';

/** What `gateway keys --out` gives a secret's file: its owner reads and writes it, nobody else. */
export const SECRET_FILE_MODE = 0o600;

/**
 * Writes `text` to a file that is created with mode 0600, so it is never readable by others, not
 * even between its creation and a chmod (a shell's `> file` makes it 0644 under the usual umask).
 * An existing path (a file, or a link, which is never followed) is refused; with `replace`, the
 * text goes to a new 0600 file beside it that is then renamed over it, so the old file's mode
 * never applies to the secret.
 */
export function writeSecretFile(path: string, text: string, replace: boolean): void {
  if (!replace) {
    createSecretFile(path, text);
    return;
  }
  const beside = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}`);
  createSecretFile(beside, text);
  try {
    renameSync(beside, path);
  } catch (error) {
    rmSync(beside, { force: true });
    throw new CommandFailed(`cannot replace ${path}: ${(error as Error).message}`);
  }
}

function createSecretFile(path: string, text: string): void {
  let fd: number;
  try {
    // O_EXCL: fails on anything at the path, a dangling link included, rather than writing through it.
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, SECRET_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new CommandFailed(`${path} exists; give a new file, or --force to replace it`);
    }
    throw new CommandFailed(`cannot create ${path}: ${(error as Error).message}`);
  }
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
