// docs/runbooks.md and the rules' runbook_url annotations: every alert has a description and a link to a
// section of the runbook that exists; every alert section belongs to an alert; and every `gateway` command
// the runbook (or a rule's description) names is one the CLI has, with flags its usage lists.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '../../..');
const PROMETHEUS_DIR = path.join(ROOT, 'infra/prometheus');
const RUNBOOK = 'docs/runbooks.md';

interface AlertRule {
  alert?: string;
  annotations?: Record<string, string>;
}

function alertRules(): AlertRule[] {
  const config = parse(readFileSync(path.join(PROMETHEUS_DIR, 'prometheus.yml'), 'utf8')) as { rule_files: string[] };
  return config.rule_files.flatMap((file) => {
    const { groups } = parse(readFileSync(path.join(PROMETHEUS_DIR, file), 'utf8')) as { groups: { rules: AlertRule[] }[] };
    return groups.flatMap((group) => group.rules).filter((rule) => rule.alert !== undefined);
  });
}

/** A heading's anchor as GitHub (and most Markdown renderers) make it: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const runbook = readFileSync(path.join(ROOT, RUNBOOK), 'utf8');
const headings = [...runbook.matchAll(/^(#{2,3}) (.+)$/gm)].map(([, level, text]) => ({ level: level!.length, text: text!.trim() }));
const anchors = new Set(headings.map((heading) => headingAnchor(heading.text)));

/** Each CLI command's words and the text of its entry (usage included), from apps/cli/src/cli.ts. */
function cliCommands(): { words: string[]; entry: string }[] {
  const source = readFileSync(path.join(ROOT, 'apps/cli/src/cli.ts'), 'utf8');
  return [...source.matchAll(/words: \[([^\]]*)\],([\s\S]*?)load:/g)].map(([, words, entry]) => ({
    words: [...words!.matchAll(/'([^']+)'/g)].map(([, word]) => word!),
    entry: entry!,
  }));
}

/** Every `gateway …` in backticks: its words up to the first argument, and its flags. */
function gatewayCommandsIn(text: string): { code: string; words: string[]; flags: string[] }[] {
  return [...text.matchAll(/`(gateway [^`]+)`/g)].map(([, code]) => ({
    code: code!,
    words: code!.split(/\s+/).slice(1),
    flags: [...code!.matchAll(/(?<![\w-])(--[a-z][a-z-]*)/g)].map(([, flag]) => flag!),
  }));
}

describe('runbooks (docs/runbooks.md)', () => {
  const rules = alertRules();

  it('has the alerts to check', () => {
    expect(rules.length).toBeGreaterThan(30);
  });

  it("gives every alert a description and a runbook_url to the alert's own section, which exists", () => {
    const problems: string[] = [];
    for (const rule of rules) {
      const { description, runbook_url: url } = rule.annotations ?? {};
      if (typeof description !== 'string' || description.trim().length < 20) problems.push(`${rule.alert}: no description`);
      if (url !== `${RUNBOOK}#${rule.alert!.toLowerCase()}`) problems.push(`${rule.alert}: runbook_url ${url}`);
      else if (!anchors.has(url.split('#')[1]!)) problems.push(`${rule.alert}: no section #${url.split('#')[1]} in ${RUNBOOK}`);
    }
    expect(problems).toEqual([]);
  });

  it('has one section per alert and no alert section for an alert that does not exist', () => {
    const sections = headings.filter((heading) => heading.level === 3).map((heading) => heading.text);
    expect([...sections].sort()).toEqual(rules.map((rule) => rule.alert!).sort());
    expect(new Set(sections).size).toBe(sections.length);
  });

  it('says in each alert section what it means, what to check and what fixes it', () => {
    const missing: string[] = [];
    const sections = runbook.split(/^### /m).slice(1);
    for (const section of sections) {
      const name = section.split('\n')[0]!.trim();
      for (const part of ['**Means.**', '**Check.**', '**Fix.**']) if (!section.includes(part)) missing.push(`${name}: ${part}`);
    }
    expect(sections.length).toBe(rules.length);
    expect(missing).toEqual([]);
  });

  it('links only to sections and pages that exist', () => {
    const broken: string[] = [];
    for (const [, target] of runbook.matchAll(/\]\(([^)]+)\)/g)) {
      const [file, anchor] = target!.split('#');
      if (/^[a-z]+:/.test(file!)) {
        broken.push(`${target}: outside the repository`);
        continue;
      }
      const page = file ? path.join(ROOT, 'docs', file) : path.join(ROOT, RUNBOOK);
      let text: string;
      try {
        text = readFileSync(page, 'utf8');
      } catch {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (anchor !== undefined) {
        const pageAnchors = new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => headingAnchor(heading!)));
        if (!pageAnchors.has(anchor)) broken.push(`${target}: no such section`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('names only gateway commands the CLI has, with flags their usage lists (the runbook and the rules alike)', () => {
    const commands = cliCommands();
    expect(commands.length).toBeGreaterThan(10);
    const descriptions = rules.map((rule) => rule.annotations?.description ?? '').join('\n');
    const named = [...gatewayCommandsIn(runbook), ...gatewayCommandsIn(descriptions)];
    expect(named.length).toBeGreaterThan(20);
    const unknown: string[] = [];
    for (const { code, words, flags } of named) {
      const command = commands.find((candidate) => candidate.words.every((word, index) => words[index] === word));
      if (!command) {
        unknown.push(`${code}: no such command`);
        continue;
      }
      for (const flag of flags) if (!command.entry.includes(flag)) unknown.push(`${code}: ${flag} is not in its usage`);
    }
    expect(unknown).toEqual([]);
  });
});
