import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

// What an app's alert rules (infra/prometheus/rules/<file>.yml) read, and what the app exports:
// each app's tests check the first is inside the second, on the app they build.

const RULES_DIR = join(__dirname, '..', '..', '..', 'infra', 'prometheus', 'rules');
const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
]);

/** A prom-client Registry, as far as these checks read it. */
export interface MetricsRegistry {
  getMetricsAsJSON(): Promise<{ name: string; type: unknown }[]>;
}

export interface AlertRule {
  alert: string;
  expr: string;
}

/** The alerts of one rule file, e.g. `callback-worker.yml`. */
export function alertRules(file: string): AlertRule[] {
  const { groups } = parse(readFileSync(join(RULES_DIR, file), 'utf8')) as { groups: { rules: AlertRule[] }[] };
  return groups.flatMap((group) => group.rules);
}

/** The metric names a PromQL expression reads: what is left once matchers, ranges, groupings, strings, numbers and calls are gone. */
export function metricsReadBy(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  return [...bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)]
    .filter(([word, , call]) => !call && !PROMQL_WORDS.has(word!.toLowerCase()))
    .map(([word]) => word!);
}

/** Every series name a registry exports, a histogram's _bucket, _sum and _count included. */
export async function exportedMetricNames(registry: MetricsRegistry): Promise<Set<string>> {
  const names = new Set<string>();
  for (const metric of await registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (String(metric.type) === 'histogram' || String(metric.type) === 'summary')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${metric.name}${suffix}`);
  }
  return names;
}

/** The metrics the rules of `file` read that `registry` does not export, as `alert: metric` (empty when all are). */
export async function metricsMissingForRules(file: string, registry: MetricsRegistry): Promise<string[]> {
  const exported = await exportedMetricNames(registry);
  return alertRules(file).flatMap((rule) =>
    metricsReadBy(rule.expr)
      .filter((metric) => !exported.has(metric))
      .map((metric) => `${rule.alert}: ${metric}`),
  );
}
