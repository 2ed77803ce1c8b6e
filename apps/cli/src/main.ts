#!/usr/bin/env node
import { runCli } from './cli';

// Written straight to the streams: a command's output is its result (secrets included), never a log line.
runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  stdout: process.stdout,
  env: process.env,
}).then(
  // Writes to a pipe or a file are synchronous on Linux: exiting loses nothing, and no idle socket holds the process.
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`gateway: ${error.message}\n`);
    process.exit(1);
  },
);
