import * as config from '@gateway/config';
import { runGateway } from '@gateway/app-testkit';
import { settlementSettings } from '@gateway/settlement-worker/operator';
import { COMMANDS, runCli, type CommandSpec } from '../src/cli';
import { redisAclSettings } from '../src/commands/redis-acl';

// Every command's help names the settings it reads, its exit codes and one example, as data on its
// COMMANDS entry: an entry without them fails here. A new entry needs `settings` (the environment
// variables it reads, [] for none), `exitCodes` (0 and 2 at least) and `example` (a command line that
// starts with `gateway <its words>`), besides `words`, `usage`, `summary` and `load`.

/** Every setting packages/config defines: the keys of each settings group it exports (a group made per port, for any port). */
function configSettings(): Set<string> {
  const defined = new Set<string>();
  for (const [name, value] of Object.entries(config)) {
    if (!/Settings$/.test(name)) continue;
    const group: unknown = typeof value === 'function' ? (value as (port: number) => unknown)(0) : value;
    if (group !== null && typeof group === 'object') for (const key of Object.keys(group)) defined.add(key);
  }
  return defined;
}

// Where a command loads a whole app's configuration, or a schema of its own, those schemas define the rest (imported here).
const DEFINED = new Set([...configSettings(), ...Object.keys(settlementSettings.properties), ...Object.keys(redisAclSettings.properties)]);
const groups = [...new Set(COMMANDS.map((command) => command.words[0]!))];
const name = (command: CommandSpec) => command.words.join(' ');

describe('the help data of every command', () => {
  it.each(COMMANDS.map((command) => [name(command), command] as const))(
    '%s names its settings, exit codes and an example',
    (_name, command) => {
      expect(Array.isArray(command.settings)).toBe(true);
      expect(command.settings.filter((setting) => !DEFINED.has(setting))).toEqual([]);
      expect(new Set(command.settings).size).toBe(command.settings.length);
      expect(Object.keys(command.exitCodes ?? {})).toEqual(expect.arrayContaining(['0', '2']));
      for (const meaning of Object.values(command.exitCodes)) expect(meaning.length).toBeGreaterThan(3);
      expect(command.example).toMatch(new RegExp(`^(\\S+=\\S+ )*gateway ${name(command)}( |$)`));
    },
  );

  it('finds the settings of packages/config, and not a name it does not define', () => {
    expect(DEFINED.has('DATABASE_URL')).toBe(true);
    expect(DEFINED.has('REDIS_PREFIX')).toBe(true);
    expect(DEFINED.has('DATABASE_URI')).toBe(false);
  });
});

describe('gateway <command> --help, in process (every command; the processes above show the same text reaches stdout)', () => {
  it.each(COMMANDS.map((command) => [name(command), command] as const))('gateway %s --help and -h, exit 0', async (_name, command) => {
    for (const flag of ['--help', '-h']) {
      const out: string[] = [];
      const io = {
        out: (text: string) => out.push(text),
        err: (text: string) => out.push(`stderr: ${text}`),
        stdout: process.stdout,
        env: {},
      };
      expect(await runCli([...command.words, flag], io)).toBe(0);
      expect(out).toHaveLength(1);
      expectHelpOf(command, out[0]!);
    }
  });
});

describe('gateway --help, as a process', () => {
  it('lists every command and says how to ask a group or a command', async () => {
    const run = await runGateway(['--help'], {});
    expect(run.code).toBe(0);
    for (const command of COMMANDS) expect(run.stdout).toContain(`  ${name(command)}`);
    expect(run.stdout).toContain('`gateway <group> --help`');
  });

  it.each(groups)('gateway %s --help: the help of each command of the group, exit 0', async (group) => {
    const run = await runGateway([group, '--help'], {});
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    for (const command of COMMANDS.filter((command) => command.words[0] === group)) expectHelpOf(command, run.stdout);
  });

  it('gateway callbacks resend --help: the one command, exit 0', async () => {
    const run = await runGateway(['callbacks', 'resend', '--help'], {});
    expect(run.code).toBe(0);
    expectHelpOf(COMMANDS.find((command) => name(command) === 'callbacks resend')!, run.stdout);
    expect(run.stdout).not.toContain('usage: gateway callbacks list');
  });
});

function expectHelpOf(command: CommandSpec, stdout: string): void {
  const start = stdout.indexOf(`usage: ${command.usage}\n`);
  expect(start).toBeGreaterThanOrEqual(0);
  const next = stdout.indexOf('\nusage: ', start + 1);
  const help = stdout.slice(start, next === -1 ? undefined : next);
  const settingsLine = help.split('\n').find((line) => line.startsWith('settings ('));
  expect(settingsLine).toBeDefined();
  for (const setting of command.settings) expect(settingsLine).toContain(setting);
  for (const [code, meaning] of Object.entries(command.exitCodes)) expect(help).toContain(`\n  ${code}  ${meaning}`);
  expect(help).toContain(`example:\n  ${command.example}`);
}
