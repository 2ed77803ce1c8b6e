import { readFileSync } from 'node:fs';
import type { Static, TObject } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { placeholderSettingRefusal } from '@gateway/domain';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads the environment once, at boot, against a TypeBox schema. Every setting `X` may instead
 * be given as a file path in `X_FILE` (how container secrets are mounted). All problems are
 * reported together, each naming its variable, and none of the values (they may be secrets).
 */
export function loadConfig<T extends TObject>(schema: T, env: NodeJS.ProcessEnv = process.env): Static<T> {
  const raw: Record<string, string> = {};
  const problems: string[] = [];
  for (const name of Object.keys(schema.properties)) {
    const fromFile = env[`${name}_FILE`];
    const direct = env[name];
    if (direct !== undefined && direct !== '') raw[name] = direct;
    else if (fromFile) {
      try {
        raw[name] = readFileSync(fromFile, 'utf8').trim();
      } catch (error) {
        problems.push(`${name}_FILE: cannot read ${fromFile} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
    }
  }
  for (const [name, given] of Object.entries(raw)) {
    const refusal = placeholderSettingRefusal(given);
    if (refusal !== undefined) problems.push(`${name}: ${refusal}`);
  }
  const value = Value.Convert(schema, Value.Default(schema, raw));
  for (const error of Value.Errors(schema, value)) {
    const name = error.path.replace(/^\//, '') || '(root)';
    const hint = (error.schema as { description?: string }).description;
    problems.push(`${name}: ${error.message}${hint ? ` (${hint})` : ''}`);
  }
  if (problems.length > 0) throw new ConfigError(dedupe(problems));
  return value as Static<T>;
}

function dedupe(problems: string[]): string[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const name = problem.split(':')[0] ?? problem;
    if (seen.has(name)) return false;
    seen.add(name);
    return true;
  });
}
