// What infra/k8s/base gives a site's monitoring stack: the dashboard, the alert rules and the Alertmanager
// routing as ConfigMaps, each the file in the repository as it is (infra/grafana, infra/prometheus,
// infra/alertmanager), and no Secret: the Alertmanager's receivers are the operator's (secrets.example.yaml);
// and the Alertmanager it runs, as docs/operations.md tells Prometheus to reach it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IConfigMap, IService } from 'kubernetes-models/v1';
import { parse } from 'yaml';
import { renderKustomization } from '../src/kustomize';

const REPO = join(__dirname, '..', '..', '..');
const production = renderKustomization(join(__dirname, '..', 'overlays/production'));
const configMap = (prefix: string) =>
  production.find((manifest) => manifest.kind === 'ConfigMap' && manifest.metadata.name.startsWith(`${prefix}-`)) as
    | (IConfigMap & { metadata: { name: string } })
    | undefined;

describe('the monitoring ConfigMaps of the base', () => {
  it.each([
    ['gateway-alertmanager-config', 'infra/alertmanager', ['alertmanager.yml', 'gateway.tmpl']],
    [
      'gateway-prometheus-rules',
      'infra/prometheus/rules',
      ['callback-worker.yml', 'chain-watcher.yml', 'payment-redirect.yml', 'settlement.yml', 'wallet-control.yml'],
    ],
    ['gateway-grafana-dashboard', 'infra/grafana/dashboards', ['gateway.json']],
  ] as const)('%s holds %s as it is', (name, dir, files) => {
    const found = configMap(name);
    expect(Object.keys(found?.data ?? {}).sort()).toEqual([...files].sort());
    for (const file of files) expect(found?.data?.[file]).toBe(readFileSync(join(REPO, dir, file), 'utf8'));
  });

  it("reads the Alertmanager's receiver keys from the files the Secret gateway-alertmanager-receivers provides", () => {
    const config = configMap('gateway-alertmanager-config')?.data?.['alertmanager.yml'] ?? '';
    const example = readFileSync(join(__dirname, '..', 'secrets.example.yaml'), 'utf8');
    const files = [...config.matchAll(/_file: \/etc\/alertmanager\/secrets\/(\S+)/g)].map(([, file]) => file!);
    expect(files.sort()).toEqual(['pagerduty-routing-key', 'ticket-webhook-url']);
    const secret = example.split('\n---\n').find((document) => document.includes('name: gateway-alertmanager-receivers')) ?? '';
    for (const file of files) expect(secret).toMatch(new RegExp(`^  ${file}: .*REPLACE-ME`, 'm'));
  });
});

describe("the base's Alertmanager, as the operations page tells Prometheus to reach it", () => {
  const service = production.find((manifest) => manifest.kind === 'Service' && manifest.metadata.name === 'gateway-alertmanager') as
    | (IService & { metadata: { name: string; namespace: string } })
    | undefined;
  const operations = readFileSync(join(REPO, 'docs/operations.md'), 'utf8');

  it("is the target of the page's alerting.alertmanagers block, and of its Prometheus Operator line", () => {
    const port = service?.spec?.ports?.[0];
    expect(port?.port).toBe(9093);
    const blocks = [...operations.matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map(([, block]) => parse(block as string) as { alerting?: { alertmanagers: { static_configs: { targets: string[] }[] }[] } })
      .filter((block) => block?.alerting !== undefined);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.alerting?.alertmanagers.flatMap((am) => am.static_configs.flatMap((config) => config.targets))).toEqual([
      `${service?.metadata.name}.${service?.metadata.namespace}.svc:${port?.port}`,
    ]);
    expect(operations).toContain(`[{ namespace: ${service?.metadata.namespace}, name: ${service?.metadata.name}, port: ${port?.name} }]`);
  });
});
