import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

// wallet-control's alert rules (infra/prometheus/rules/wallet-control.yml), checked as the
// settlement rules are (apps/settlement-worker/test/alert-rules.test.ts): loaded by prometheus.yml,
// every metric read registered by wallet-control's source, every alert with a severity and a summary.
const ROOT = path.resolve(__dirname, '../../..');
const PROMETHEUS_DIR = path.join(ROOT, 'infra/prometheus');
const RULE_FILE = path.join(PROMETHEUS_DIR, 'rules/wallet-control.yml');

interface Rule {
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return name.endsWith('.ts') ? [file] : [];
  });
}

/** The names of the prom-client metrics wallet-control's own source constructs. */
function walletControlMetrics(): Set<string> {
  const constructor = /new (?:Counter|Gauge|Histogram|Summary)\(\{\s*name: '([a-z_:][a-z0-9_:]*)'/g;
  const files = sourceFiles(path.join(ROOT, 'apps/wallet-control/src'));
  return new Set(files.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(constructor)].map((match) => match[1]!)));
}

/** Metric names in a PromQL expression: what is left once matchers, ranges, groupings, numbers and calls are gone. */
function metricsIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, ' ');
  return [...bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)].filter(([, , call]) => !call).map(([word]) => word!);
}

const rules = (): Rule[] =>
  (parse(readFileSync(RULE_FILE, 'utf8')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((group) => group.rules);

describe('Prometheus alert rules of wallet-control', () => {
  it('prometheus.yml loads them', () => {
    const config = parse(readFileSync(path.join(PROMETHEUS_DIR, 'prometheus.yml'), 'utf8')) as { rule_files?: string[] };
    expect(config.rule_files).toContain('rules/wallet-control.yml');
  });

  it('alert on the HD index space as it is used up, reading only metrics wallet-control registers', () => {
    const registered = walletControlMetrics();
    expect(registered).toContain('wallet_hd_index_space_used_ratio');
    const read = rules().flatMap((rule) => metricsIn(rule.expr));
    expect(read).toContain('wallet_hd_index_space_used_ratio');
    expect(read.filter((metric) => !registered.has(metric))).toEqual([]);
  });

  it('gives every alert a severity and a summary', () => {
    for (const rule of rules()) {
      expect({ alert: rule.alert, severity: rule.labels?.severity, summary: typeof rule.annotations?.summary }).toEqual({
        alert: expect.any(String),
        severity: expect.stringMatching(/^(page|ticket)$/),
        summary: 'string',
      });
    }
  });
});
