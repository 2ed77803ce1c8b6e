// The monitoring configuration as Prometheus and Grafana read it: promtool accepts the scrape
// config and every rule file; every metric a rule or a dashboard panel reads is one an app
// registers (each app's own tests prove it exports what its rule file reads:
// alert-rules-exported.test.ts); every alert has a severity and a summary; the rules' unit tests
// (*.rules-test.yml beside this file) pass `promtool test rules`.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { parse } from 'yaml';
import { metricsReadBy } from '@gateway/testkit';

const ROOT = path.resolve(__dirname, '../../..');
const PROMETHEUS_DIR = path.join(ROOT, 'infra/prometheus');

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (name === 'node_modules' || name === 'test') return [];
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return name.endsWith('.ts') ? [file] : [];
  });
}

/**
 * Every metric the apps and packages register: the `name` of each prom-client constructor in their
 * source (a histogram also exposes _bucket, _sum and _count), and prom-client's default process
 * metrics, which every app collects.
 */
function registeredMetrics(): Set<string> {
  const names = new Set<string>();
  const metricConstructor = /new (Counter|Gauge|Histogram|Summary)\(\{\s*name: '([a-z_:][a-z0-9_:]*)'/g;
  for (const top of ['apps', 'packages']) {
    for (const pkg of readdirSync(path.join(ROOT, top))) {
      const src = path.join(ROOT, top, pkg, 'src');
      if (!statSync(src, { throwIfNoEntry: false })?.isDirectory()) continue;
      for (const file of sourceFiles(src)) {
        for (const [, kind, name] of readFileSync(file, 'utf8').matchAll(metricConstructor)) {
          names.add(name!);
          if (kind === 'Histogram' || kind === 'Summary') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
        }
      }
    }
  }
  const defaults = new Registry();
  collectDefaultMetrics({ register: defaults });
  for (const metric of defaults.getMetricsAsArray()) names.add(metric.name);
  return names;
}

function ruleFiles(): string[] {
  const config = parse(readFileSync(path.join(PROMETHEUS_DIR, 'prometheus.yml'), 'utf8')) as { rule_files?: string[] };
  return (config.rule_files ?? []).map((file) => path.join(PROMETHEUS_DIR, file));
}

function rulesOf(file: string): Rule[] {
  const { groups } = parse(readFileSync(file, 'utf8')) as { groups: Array<{ name: string; rules: Rule[] }> };
  return groups.flatMap((group) => group.rules);
}

describe('Prometheus alert rules (infra/prometheus)', () => {
  it('prometheus.yml loads a rule file for every part, and nothing else lies in rules/', () => {
    const parts = ['settlement', 'chain-watcher', 'wallet-control', 'payment-redirect', 'callback-worker'];
    expect(ruleFiles().sort()).toEqual(parts.map((part) => path.join(PROMETHEUS_DIR, `rules/${part}.yml`)).sort());
    expect(readdirSync(path.join(PROMETHEUS_DIR, 'rules')).sort()).toEqual(parts.map((part) => `${part}.yml`).sort());
  });

  // Debian's prometheus package (.ci/run installs it): the checks an operator's Prometheus makes at
  // load. Without promtool on the machine they are skipped, and said so, except in CI, where they fail.
  const promtool = spawnSync('promtool', ['--version']).status === 0;
  if (!promtool && !process.env.CI) console.warn('promtool is not installed (Debian: apt-get install prometheus): its checks are skipped');
  (promtool || process.env.CI ? it.each : it.skip.each)(['prometheus.yml', 'prometheus.compose.yml'])(
    'promtool accepts %s and the rule files it loads',
    (config) => {
      const output = execFileSync('promtool', ['check', 'config', path.join(PROMETHEUS_DIR, config)], { encoding: 'utf8' });
      expect(output).toContain('SUCCESS');
      for (const file of ruleFiles()) {
        expect(execFileSync('promtool', ['check', 'rules', file], { encoding: 'utf8' })).toMatch(/SUCCESS: [1-9]\d* rules found/);
      }
    },
  );

  // The rules' own unit tests (`promtool test rules`): series as the apps export them, and when an alert fires.
  const ruleTests = readdirSync(__dirname).filter((name) => name.endsWith('.rules-test.yml'));
  it('has unit tests for the rules', () => {
    expect(ruleTests).toEqual(
      expect.arrayContaining(['callback-worker.rules-test.yml', 'payment-redirect.rules-test.yml', 'settlement.rules-test.yml']),
    );
  });
  (promtool || process.env.CI ? it.each : it.skip.each)(ruleTests)('promtool test rules %s', (file) => {
    const run = spawnSync('promtool', ['test', 'rules', file], { cwd: __dirname, encoding: 'utf8' });
    expect({ status: run.status, output: `${run.stdout}${run.stderr}` }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  it('every metric a dashboard panel reads is one an app registers, and every panel reads one', () => {
    const registered = registeredMetrics();
    const dashboards = path.join(ROOT, 'infra/grafana/dashboards');
    const unknown: string[] = [];
    let panels = 0;
    for (const file of readdirSync(dashboards)) {
      const dashboard = JSON.parse(readFileSync(path.join(dashboards, file), 'utf8')) as {
        panels: { type: string; title: string; targets?: { expr: string }[] }[];
      };
      for (const panel of dashboard.panels.filter((candidate) => candidate.type !== 'row')) {
        panels += 1;
        const metrics = (panel.targets ?? []).flatMap((target) => metricsReadBy(target.expr));
        expect({ panel: panel.title, reads: metrics.length > 0 }).toEqual({ panel: panel.title, reads: true });
        for (const metric of metrics) if (!registered.has(metric)) unknown.push(`${file} "${panel.title}": ${metric}`);
      }
    }
    expect(panels).toBeGreaterThan(20);
    expect(unknown).toEqual([]);
  });

  it('every metric an expression reads is one an app registers', () => {
    const registered = registeredMetrics();
    // The extraction itself: a name in a function call, beside label matchers and a grouping, is found.
    expect(metricsReadBy('sum by (reason) (increase(settlement_needs_attention_total{reason="x"}[15m])) > 0')).toEqual([
      'settlement_needs_attention_total',
    ]);
    const unknown: string[] = [];
    let read = 0;
    for (const file of ruleFiles()) {
      for (const rule of rulesOf(file)) {
        const metrics = metricsReadBy(rule.expr);
        expect({ rule: rule.alert, metrics: metrics.length > 0 }).toEqual({ rule: rule.alert, metrics: true });
        read += metrics.length;
        for (const metric of metrics) if (!registered.has(metric)) unknown.push(`${rule.alert ?? rule.record}: ${metric}`);
      }
    }
    expect(read).toBeGreaterThan(0);
    expect(unknown).toEqual([]);
  });

  it('alerts on the settlement backlog, held dust, deposits needing a person or held in the other USDC, underpaid orders, own transfers, orphaned deposits, the HD index space and opened provider circuits', () => {
    const read = new Set(ruleFiles().flatMap((file) => rulesOf(file).flatMap((rule) => metricsReadBy(rule.expr))));
    for (const metric of [
      'settlement_oldest_unsettled_deposit_seconds',
      'settlement_dust_held_deposits',
      'settlement_dust_held_usdc',
      'settlement_deposits_needing_attention',
      'settlement_needs_attention_total',
      'settlement_other_token_held_deposits',
      'chain_watcher_own_transfers_total',
      'chain_watcher_deposits_total',
      'wallet_control_hd_index_space_used_ratio',
      'wallet_control_new_wallets_refused_total',
      'rate_limit_store_errors_total',
      'wallet_control_payout_quota_store_errors_total',
      'payment_redirect_provider_checkout_failures_total',
      'payment_redirect_provider_tokens_minted_total',
      'payment_redirect_provider_call_duration_seconds_bucket',
      'payment_redirect_provider_circuit_openings_total',
      'settlement_order_deposits_total',
    ]) {
      expect(read).toContain(metric);
    }
    // The deposits counter is read for its orphans, the label the chain watcher counts them under.
    const expressions = ruleFiles().flatMap((file) => rulesOf(file).map((rule) => rule.expr));
    expect(expressions.some((expr) => /chain_watcher_deposits_total\{[^}]*status="orphaned"/.test(expr))).toBe(true);
    // The underpaid orders of a provider, the state settlement counts them under.
    expect(expressions.some((expr) => /settlement_order_deposits_total\{[^}]*state="underpaid"/.test(expr))).toBe(true);
    // The ceiling's refusals, the label wallet-control counts them under.
    expect(expressions.some((expr) => /wallet_control_new_wallets_refused_total\{[^}]*reason="gateway_ceiling"/.test(expr))).toBe(true);
  });

  it('gives every alert a severity and a summary', () => {
    for (const rule of ruleFiles().flatMap(rulesOf)) {
      expect({ alert: rule.alert, severity: rule.labels?.severity, summary: typeof rule.annotations?.summary }).toEqual({
        alert: expect.any(String),
        severity: expect.stringMatching(/^(page|ticket)$/),
        summary: 'string',
      });
    }
  });
});
