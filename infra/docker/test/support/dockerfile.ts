// The instructions of a Dockerfile, grouped by build stage: enough to check what each stage does
// and to run a stage's RUN commands without Docker.
export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

export interface ParsedDockerfile {
  /** ARGs before the first FROM, with their defaults. */
  globalArgs: Record<string, string>;
  stages: Stage[];
}

export function parseDockerfile(text: string): ParsedDockerfile {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    lines.push(pending + line);
    pending = '';
  }
  const parsed: ParsedDockerfile = { globalArgs: {}, stages: [] };
  for (const line of lines) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') {
      const [, from = '', name = ''] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args) ?? [];
      parsed.stages.push({ name, from, instructions: [] });
    } else if (parsed.stages.length === 0) {
      if (upper === 'ARG') {
        const [name = '', value = ''] = args.split('=');
        parsed.globalArgs[name] = value;
      }
    } else {
      parsed.stages.at(-1)!.instructions.push({ keyword: upper, args });
    }
  }
  return parsed;
}

export function stage(dockerfile: ParsedDockerfile, name: string): Stage {
  const found = dockerfile.stages.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`the Dockerfile has no stage ${name}`);
  return found;
}

/** The stage's instructions with `keyword` (upper case), their arguments in order. */
export function argsOf(target: Stage, keyword: string): string[] {
  return target.instructions.filter((instruction) => instruction.keyword === keyword).map((instruction) => instruction.args);
}

/** The exec form of CMD/ENTRYPOINT/HEALTHCHECK CMD: a JSON array after any options. */
export function execForm(args: string): string[] {
  const start = args.indexOf('[');
  if (start === -1) throw new Error(`not in exec form: ${args}`);
  return JSON.parse(args.slice(start)) as string[];
}
