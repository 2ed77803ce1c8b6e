// The Alertmanager configuration (infra/alertmanager) as Alertmanager reads it: amtool accepts it and
// its template, every alert of the rules routes by its severity to the receiver this severity is for
// (page → pager, ticket → ticket), an alert of any other severity pages, the inhibitions name alerts that
// exist, and the receivers' key files are the keys of the Secret an operator makes
// (infra/k8s/secrets.example.yaml) and the folder compose mounts.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

const ROOT = path.resolve(__dirname, '../../..');
const PROMETHEUS_DIR = path.join(ROOT, 'infra/prometheus');
const CONFIG = path.join(ROOT, 'infra/alertmanager/alertmanager.yml');

const RECEIVER_OF_SEVERITY: Record<string, string> = { page: 'pager', ticket: 'ticket' };

interface AlertRule {
  alert: string;
  labels?: Record<string, string>;
}

function alertRules(): AlertRule[] {
  const config = parse(readFileSync(path.join(PROMETHEUS_DIR, 'prometheus.yml'), 'utf8')) as { rule_files: string[] };
  return config.rule_files.flatMap((file) => {
    const { groups } = parse(readFileSync(path.join(PROMETHEUS_DIR, file), 'utf8')) as { groups: { rules: Partial<AlertRule>[] }[] };
    return groups.flatMap((group) => group.rules).filter((rule): rule is AlertRule => rule.alert !== undefined);
  });
}

interface Route {
  receiver?: string;
  matchers?: string[];
  routes?: Route[];
}
interface AlertmanagerConfig {
  route: Route;
  receivers: Record<string, unknown>[];
  inhibit_rules: { source_matchers: string[]; target_matchers: string[]; equal?: string[] }[];
}
const config = parse(readFileSync(CONFIG, 'utf8')) as AlertmanagerConfig;

/** The alert names a matcher list selects: alertname="X" or alertname=~"X|Y". */
function alertNamesOf(matchers: string[]): string[] {
  return matchers.flatMap((matcher) => {
    const match = /^alertname(=~?)"([^"]+)"$/.exec(matcher);
    if (!match) return [];
    return match[1] === '=' ? [match[2]!] : match[2]!.split('|');
  });
}

describe('Alertmanager (infra/alertmanager)', () => {
  const rules = alertRules();

  it('routes every severity an alert has, and only page and ticket are used', () => {
    const routed = new Map(
      (config.route.routes ?? []).flatMap((route) =>
        (route.matchers ?? []).flatMap((matcher) => {
          const match = /^severity="([a-z]+)"$/.exec(matcher);
          return match ? [[match[1]!, route.receiver] as const] : [];
        }),
      ),
    );
    expect(Object.fromEntries(routed)).toEqual(RECEIVER_OF_SEVERITY);
    expect(config.route.receiver).toBe('pager');
    for (const rule of rules) expect([rule.alert, routed.has(rule.labels?.severity ?? '')]).toEqual([rule.alert, true]);
  });

  it('inhibits only alerts that exist, each by one that pages', () => {
    const names = new Set(rules.map((rule) => rule.alert));
    const severity = new Map(rules.map((rule) => [rule.alert, rule.labels?.severity]));
    expect(config.inhibit_rules.length).toBeGreaterThan(0);
    for (const inhibition of config.inhibit_rules) {
      const sources = alertNamesOf(inhibition.source_matchers);
      const targets = alertNamesOf(inhibition.target_matchers);
      expect(sources.length * targets.length).toBeGreaterThan(0);
      for (const name of [...sources, ...targets]) expect([name, names.has(name)]).toEqual([name, true]);
      for (const name of sources) expect([name, severity.get(name)]).toEqual([name, 'page']);
    }
  });

  it("reads the receivers' keys from files only: the Secret's keys in secrets.example.yaml, under the folder compose mounts", () => {
    const text = readFileSync(CONFIG, 'utf8');
    const files = [...text.matchAll(/_file: (\S+)/g)].map(([, file]) => file!);
    expect(files.length).toBe(config.receivers.length);
    expect(text).not.toMatch(/(?<!_file): https?:\/\//);
    for (const file of files) expect(path.dirname(file)).toBe('/etc/alertmanager/secrets');
    const secret = parseAllDocuments(readFileSync(path.join(ROOT, 'infra/k8s/secrets.example.yaml'), 'utf8'))
      .map((document) => document.toJSON() as { metadata?: { name?: string }; stringData?: Record<string, string> })
      .find((document) => document.metadata?.name === 'gateway-alertmanager-receivers');
    expect(Object.keys(secret?.stringData ?? {}).sort()).toEqual(files.map((file) => path.basename(file)).sort());
    const compose = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
    expect(compose).toContain(':/etc/alertmanager/secrets:ro');
    expect(compose).toContain('./infra/alertmanager:/etc/alertmanager:ro');
  });

  it('is what both Prometheus configs send their alerts to', () => {
    for (const [file, target] of [
      ['prometheus.yml', '127.0.0.1:9093'],
      ['prometheus.compose.yml', 'alertmanager:9093'],
    ] as const) {
      const prometheus = parse(readFileSync(path.join(PROMETHEUS_DIR, file), 'utf8')) as {
        alerting?: { alertmanagers: { static_configs: { targets: string[] }[] }[] };
      };
      expect([file, prometheus.alerting?.alertmanagers.flatMap((am) => am.static_configs.flatMap((c) => c.targets))]).toEqual([
        file,
        [target],
      ]);
    }
  });

  // Debian's prometheus-alertmanager package (.ci/run installs it): the checks Alertmanager makes at load,
  // and its routing tree asked for each alert. Skipped without amtool, and said so, except in CI.
  const amtool = spawnSync('amtool', ['--version']).status === 0;
  if (!amtool && !process.env.CI) {
    console.warn('amtool is not installed (Debian: apt-get install prometheus-alertmanager): its checks are skipped');
  }
  const withAmtool = amtool || process.env.CI ? it : it.skip;

  withAmtool('amtool check-config accepts the configuration and its template', () => {
    const output = execFileSync('amtool', ['check-config', CONFIG], { encoding: 'utf8' });
    expect(output).toContain('SUCCESS');
    expect(output).toContain(' - 1 templates');
    expect(output).not.toContain('FAILED');
  });

  withAmtool("routes each alert to its severity's receiver, and an unknown severity to the pager (amtool config routes test)", () => {
    const route = (labels: string[], receiver: string) =>
      spawnSync('amtool', ['config', 'routes', 'test', `--config.file=${CONFIG}`, `--verify.receivers=${receiver}`, ...labels], {
        encoding: 'utf8',
      });
    const wrong: string[] = [];
    for (const rule of rules) {
      const severity = rule.labels?.severity as string;
      const run = route([`alertname=${rule.alert}`, `severity=${severity}`], RECEIVER_OF_SEVERITY[severity] as string);
      if (run.status !== 0) wrong.push(`${rule.alert} (${severity}): ${run.stdout.trim()}`);
    }
    expect(wrong).toEqual([]);
    // The check can fail: a ticket is not routed to the pager, and an alert without a known severity pages.
    expect(route(['alertname=CallbackAttemptRecordsLost', 'severity=ticket'], 'pager').status).not.toBe(0);
    expect(route(['alertname=Unknown', 'severity=info'], 'pager').status).toBe(0);
    expect(route(['alertname=Unknown'], 'pager').status).toBe(0);
  });

  // amtool's example data has no annotations: this proves the templates run, the link's base and path beside each other.
  withAmtool('renders the title and the text, which ends with the runbook link', () => {
    const output = execFileSync(
      'amtool',
      [
        'template',
        'render',
        `--template.glob=${path.join(ROOT, 'infra/alertmanager/gateway.tmpl')}`,
        '--template.text={{ template "gateway.title" . }}|{{ template "gateway.text" . }}',
      ],
      { encoding: 'utf8' },
    );
    expect(output).toMatch(/^\[[A-Z]+\] \|[\s\S]*Runbook: $/m);
  });
});
