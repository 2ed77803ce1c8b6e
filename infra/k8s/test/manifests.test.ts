import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IDeployment } from 'kubernetes-models/apps/v1';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import type { IJob } from 'kubernetes-models/batch/v1';
import type { IIngress, INetworkPolicy, INetworkPolicyPort } from 'kubernetes-models/networking.k8s.io/v1';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1';
import type { IConfigMap, IContainer, IPodSpec, IPodTemplateSpec, ISecret, IService } from 'kubernetes-models/v1';
import { parse } from 'yaml';
import { manifestName, schemaProblems } from '../src/kubernetes-schema';
import { type Manifest, parseManifests, renderKustomization } from '../src/kustomize';

const K8S = join(__dirname, '..');
const REPO = join(K8S, '..', '..');
const production = renderKustomization(join(K8S, 'overlays/production'));
const migration = renderKustomization(join(K8S, 'overlays/production-migration'));
const secretsExample = parseManifests(readFileSync(join(K8S, 'secrets.example.yaml'), 'utf8'), 'secrets.example.yaml');

const APPS = ['wallet-control', 'payment-redirect', 'chain-watcher', 'settlement-worker', 'callback-worker'] as const;
type App = (typeof APPS)[number];
const API_APPS: readonly App[] = ['wallet-control', 'payment-redirect'];
// The chain-watcher leads through a PostgreSQL advisory lock: one leader and one standby, never scaled.
const AUTOSCALED: readonly App[] = APPS.filter((app) => app !== 'chain-watcher');
const RELEASE = /^gateway\/[a-z-]+:\d+\.\d+\.\d+$/;
// The base's Alertmanager: the upstream image, at the version docker-compose.yml runs.
const ALERTMANAGER = 'gateway-alertmanager';
const composeAlertmanagerImage = (
  parse(readFileSync(join(REPO, 'docker-compose.yml'), 'utf8')) as {
    services: Record<string, { image?: string }>;
  }
).services.alertmanager?.image;

// Which Secrets each workload mounts: secrets.example.yaml says the same to the operator.
const SECRETS_HELD: Record<App | 'migration' | 'redis-acl', string[]> = {
  'wallet-control': [
    'gateway-db-wallet-control',
    'gateway-redis-wallet-control',
    'gateway-address-in',
    'gateway-hd-xpub',
    'gateway-admin-token',
  ],
  'payment-redirect': ['gateway-db-payment-redirect', 'gateway-redis-payment-redirect', 'gateway-address-in', 'gateway-provider-moonpay'],
  'chain-watcher': ['gateway-db-chain-watcher', 'gateway-redis-chain-watcher', 'gateway-chain-rpc'],
  'settlement-worker': [
    'gateway-db-settlement-worker',
    'gateway-redis-settlement-worker',
    'gateway-chain-rpc',
    'gateway-settlement-seed',
    'gateway-relayer',
  ],
  'callback-worker': ['gateway-db-callback-worker', 'gateway-redis-callback-worker', 'gateway-callback-signing'],
  migration: ['gateway-db-owner'],
  'redis-acl': [
    'gateway-redis-admin',
    ...['wallet-control', 'payment-redirect', 'chain-watcher', 'settlement-worker', 'callback-worker'].map((app) => `gateway-redis-${app}`),
  ],
};

// Each app's settings schema, from its own config loader (required settings without a default must be set).
const SETTINGS_EXPORT: Record<App, string> = {
  'wallet-control': 'walletControlSettings',
  'payment-redirect': 'paymentRedirectSettings',
  'chain-watcher': 'chainWatcherSettings',
  'settlement-worker': 'settlementSettings',
  'callback-worker': 'callbackWorkerSettings',
};
// Settings with a default that production refuses or that this deployment depends on.
const REQUIRED_HERE: Partial<Record<App, string[]>> = {
  'wallet-control': ['CALLBACK_PUBLIC_KEYS', 'TRUST_PROXY', 'NODE_ENV'],
  'payment-redirect': ['PUBLIC_URL', 'TRUST_PROXY', 'NODE_ENV'],
  'chain-watcher': ['NODE_ENV'],
  'settlement-worker': ['NODE_ENV'],
  'callback-worker': ['NODE_ENV'],
};
// Read by Node itself, not by the app's settings.
const NODE_VARIABLES = new Set(['NODE_OPTIONS']);
// What every app may open at most (HPA maxima × pool sizes): PostgreSQL's max_connections must exceed it.
const DATABASE_CONNECTION_BUDGET = 180;

interface SettingsSchema {
  properties: Record<string, { default?: unknown }>;
  required?: string[];
}

function settingsSchema(app: App): SettingsSchema {
  // The app's source, read by path: the manifests are checked against the code they deploy.
  const config = require(join(REPO, 'apps', app, 'src', 'config.ts')) as Record<string, SettingsSchema>;
  const schema = config[SETTINGS_EXPORT[app]];
  if (!schema) throw new Error(`apps/${app}/src/config.ts exports no ${SETTINGS_EXPORT[app]}`);
  return schema;
}

const ofKind = <T>(manifests: readonly Manifest[], kind: string) =>
  manifests.filter((manifest) => manifest.kind === kind) as unknown as (T & Manifest)[];
const named = <T extends Manifest>(list: readonly T[], name: string): T => {
  const found = list.find((manifest) => manifest.metadata.name === name);
  if (!found) throw new Error(`no ${name}`);
  return found;
};

const allDeployments = ofKind<IDeployment>(production, 'Deployment');
// The gateway's own apps; the Alertmanager is checked apart (describe 'the Alertmanager').
const deployments = allDeployments.filter((deployment) => deployment.metadata.name !== ALERTMANAGER);
const alertmanager = named(allDeployments, ALERTMANAGER);
const jobs = ofKind<IJob>(migration, 'Job');
const configMaps = ofKind<IConfigMap>(production, 'ConfigMap');
const hpas = ofKind<IHorizontalPodAutoscaler>(production, 'HorizontalPodAutoscaler');
const pdbs = ofKind<IPodDisruptionBudget>(production, 'PodDisruptionBudget');
const policies = ofKind<INetworkPolicy>(production, 'NetworkPolicy');
const ingresses = ofKind<IIngress>(production, 'Ingress');
const services = ofKind<IService>(production, 'Service');

const template = (workload: IDeployment | IJob): IPodTemplateSpec => workload.spec?.template as IPodTemplateSpec;
const podSpec = (workload: IDeployment | IJob): IPodSpec => template(workload).spec as IPodSpec;
const appContainer = (app: App): IContainer => podSpec(named(deployments, app)).containers[0] as IContainer;
const alertmanagerContainer = podSpec(alertmanager).containers[0] as IContainer;
const workloads: [string, IDeployment | IJob][] = [
  ...deployments.map((d) => [d.metadata.name, d] as [string, IDeployment]),
  ...jobs.map((j) => [j.metadata.name, j] as [string, IJob]),
];
const everyWorkload: [string, IDeployment | IJob][] = [...workloads, [ALERTMANAGER, alertmanager]];

/** A pod of pinned images, with requests and limits, as a user that is not root, read-only, without capabilities. */
function expectPinnedAndLockedDown(spec: IPodSpec, image: RegExp, user: number): void {
  expect(spec.automountServiceAccountToken).toBe(false);
  expect(spec.enableServiceLinks).toBe(false);
  expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: user, seccompProfile: { type: 'RuntimeDefault' } });
  for (const container of [...spec.containers, ...(spec.initContainers ?? [])]) {
    expect(container.image).toMatch(image);
    expect(container.image).not.toMatch(/:latest$/);
    expect(container.resources?.requests).toEqual({ cpu: expect.anything(), memory: expect.anything() });
    expect(container.resources?.limits).toEqual({ cpu: expect.anything(), memory: expect.anything() });
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: user,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.securityContext?.capabilities?.add ?? []).toEqual([]);
    expect(container.securityContext?.privileged).not.toBe(true);
  }
}

type LabelSelector = NonNullable<INetworkPolicy['spec']>['podSelector'];

function selects(selector: LabelSelector, labels: Record<string, string> = {}): boolean {
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpressions = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    if (operator === 'In') return values.includes(labels[key] as string);
    if (operator === 'NotIn') return !values.includes(labels[key] as string);
    if (operator === 'Exists') return key in labels;
    return !(key in labels);
  });
  return byLabels && byExpressions;
}

/** The Secrets a pod reads: mounted (secret or projected volumes) or in its environment. */
function secretsOf(spec: IPodSpec): Map<string, Set<string>> {
  const held = new Map<string, Set<string>>();
  const hold = (name: string, key: string) => held.set(name, (held.get(name) ?? new Set()).add(key));
  for (const volume of spec.volumes ?? []) {
    if (volume.secret)
      for (const item of volume.secret.items ?? [{ key: '*', path: '' }]) hold(volume.secret.secretName as string, item.key);
    for (const source of volume.projected?.sources ?? [])
      if (source.secret) for (const item of source.secret.items ?? [{ key: '*', path: '' }]) hold(source.secret.name as string, item.key);
  }
  for (const container of [...spec.containers, ...(spec.initContainers ?? [])]) {
    for (const variable of container.env ?? [])
      if (variable.valueFrom?.secretKeyRef) hold(variable.valueFrom.secretKeyRef.name as string, variable.valueFrom.secretKeyRef.key);
    for (const source of container.envFrom ?? []) if (source.secretRef) hold(source.secretRef.name as string, '*');
  }
  return held;
}

/** Files the container can read: mount path + item path → the Secret it comes from. */
function mountedFiles(spec: IPodSpec, container: IContainer): Map<string, string> {
  const files = new Map<string, string>();
  for (const mount of container.volumeMounts ?? []) {
    const volume = spec.volumes?.find((candidate) => candidate.name === mount.name);
    const sources =
      volume?.projected?.sources?.flatMap((source) =>
        source.secret ? [{ name: source.secret.name as string, items: source.secret.items ?? [] }] : [],
      ) ?? [];
    if (volume?.secret) sources.push({ name: volume.secret.secretName as string, items: volume.secret.items ?? [] });
    for (const { name, items } of sources) for (const item of items) files.set(`${mount.mountPath}/${item.path}`, name);
  }
  return files;
}

/** Every setting the container gets, by name (`X` for `X_FILE`), and where from. */
function settingsGiven(container: IContainer): Map<string, string> {
  const given = new Map<string, string>();
  for (const variable of container.env ?? []) given.set(variable.name.replace(/_FILE$/, ''), `env ${variable.name}`);
  for (const source of container.envFrom ?? []) {
    const configMap = configMaps.find((candidate) => candidate.metadata.name === source.configMapRef?.name);
    for (const key of Object.keys(configMap?.data ?? {})) given.set(key, `ConfigMap ${configMap?.metadata.name}`);
  }
  return given;
}

const connectionsPerPod = (app: App) =>
  Number(appContainer(app).env?.find((variable) => variable.name === 'DATABASE_POOL_SIZE')?.value ?? 10) +
  (app === 'chain-watcher' ? 1 : 0);
const maxPods = (app: App) =>
  hpas.find((hpa) => hpa.spec?.scaleTargetRef.name === app)?.spec?.maxReplicas ?? named(deployments, app).spec?.replicas ?? 1;

describe('the production overlay, rendered', () => {
  it('has every app and the Alertmanager, each with its Service, and no Secret (those are made apart)', () => {
    expect(allDeployments.map((d) => d.metadata.name).sort()).toEqual([...APPS, ALERTMANAGER].sort());
    expect(services.map((s) => s.metadata.name).sort()).toEqual([...APPS, ALERTMANAGER].sort());
    expect(production.filter((m) => m.kind === 'Secret').map(manifestName)).toEqual([]);
    expect(migration.filter((m) => m.kind === 'Secret').map(manifestName)).toEqual([]);
    expect(jobs.map((j) => j.metadata.name)).toEqual(['gateway-migrate', 'gateway-redis-acl']);
  });

  it('is valid against the Kubernetes schemas, with no unknown field (as is the Secrets example)', () => {
    expect(schemaProblems([...production, ...migration, ...secretsExample])).toEqual([]);
  });

  it('puts everything in one namespace', () => {
    expect(new Set([...production, ...migration].map((m) => m.metadata.namespace))).toEqual(new Set(['gateway']));
  });
});

describe('every container', () => {
  it.each(workloads)('%s runs one pinned release, with requests, limits and no privileges', (_name, workload) => {
    expectPinnedAndLockedDown(podSpec(workload), RELEASE, 1000);
  });

  it('is of one release across the apps and the migration Job', () => {
    const images = workloads.flatMap(([, workload]) => podSpec(workload).containers.map((container) => container.image as string));
    expect(new Set(images.map((image) => image.split(':')[1])).size).toBe(1);
    for (const app of APPS) expect(appContainer(app).image).toMatch(new RegExp(`^gateway/${app}:`));
  });

  it.each(APPS)('%s has startup, readiness (/readyz) and liveness (/healthz) probes on a port it declares', (app) => {
    const container = appContainer(app);
    const ports = (container.ports ?? []).map((port) => port.name);
    expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
    expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
    expect(container.startupProbe?.httpGet?.path).toBe('/healthz');
    for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe])
      expect(ports).toContain(probe?.httpGet?.port);
    // The API apps answer the load balancer's checks on the port it forwards to.
    if (API_APPS.includes(app)) expect(container.readinessProbe?.httpGet?.port).toBe('http');
  });

  it("of the migration Job runs gateway migrate of the operator CLI's image", () => {
    const container = podSpec(named(jobs, 'gateway-migrate')).containers[0] as IContainer;
    expect(container.image).toMatch(/^gateway\/cli:/);
    expect(container.command).toEqual(['node', 'dist/main.js', 'migrate']);
    expect(podSpec(named(jobs, 'gateway-migrate')).restartPolicy).toBe('Never');
  });
});

describe('settings', () => {
  it.each(APPS)('%s gets every setting its config loader requires, and none it does not know', (app) => {
    const schema = settingsSchema(app);
    const required = (schema.required ?? []).filter((name) => schema.properties[name]?.default === undefined);
    const given = settingsGiven(appContainer(app));
    expect([...required, ...(REQUIRED_HERE[app] ?? [])].filter((name) => !given.has(name))).toEqual([]);
    expect([...given.keys()].filter((name) => !(name in schema.properties) && !NODE_VARIABLES.has(name))).toEqual([]);
  });

  it.each(APPS)('%s reads its ConfigMaps, and each *_FILE names a file a read-only mount provides', (app) => {
    const spec = podSpec(named(deployments, app));
    const container = appContainer(app);
    for (const source of container.envFrom ?? []) expect(configMaps.map((c) => c.metadata.name)).toContain(source.configMapRef?.name);
    const files = mountedFiles(spec, container);
    for (const variable of (container.env ?? []).filter((v) => v.name.endsWith('_FILE')))
      expect([variable.name, files.has(variable.value as string)]).toEqual([variable.name, true]);
    for (const mount of container.volumeMounts ?? []) expect(mount.readOnly).toBe(true);
  });

  it('gives CHAIN_ID and USDC_TOKEN_ADDRESS from one ConfigMap to every app that reads them', () => {
    const readers = APPS.filter((app) => 'CHAIN_ID' in settingsSchema(app).properties);
    const sources = readers.map((app) => [
      settingsGiven(appContainer(app)).get('CHAIN_ID'),
      settingsGiven(appContainer(app)).get('USDC_TOKEN_ADDRESS'),
    ]);
    expect(new Set(sources.flat()).size).toBe(1);
  });

  it("serves payment-redirect's PUBLIC_URL over https at the host its Ingress routes", () => {
    const publicUrl = new URL(configMaps.flatMap((c) => Object.entries(c.data ?? {})).find(([key]) => key === 'PUBLIC_URL')?.[1] as string);
    expect(publicUrl.protocol).toBe('https:');
    const routed = ingresses.flatMap((ingress) => ingress.spec?.rules ?? []).find((rule) => rule.host === publicUrl.hostname);
    expect(routed?.http?.paths.map((path) => path.backend.service?.name)).toEqual(['payment-redirect']);
  });

  it('gives the callback-worker time to finish its attempts before it is killed', () => {
    const grace = Number(appContainer('callback-worker').env?.find((v) => v.name === 'CALLBACK_SHUTDOWN_GRACE_SECONDS')?.value);
    expect(podSpec(named(deployments, 'callback-worker')).terminationGracePeriodSeconds).toBeGreaterThan(grace);
  });

  it(`keeps the apps' PostgreSQL connections at full scale within ${DATABASE_CONNECTION_BUDGET}`, () => {
    const total = APPS.reduce((sum, app) => sum + maxPods(app) * connectionsPerPod(app), 0);
    expect(total).toBeLessThanOrEqual(DATABASE_CONNECTION_BUDGET);
  });
});

describe('secrets', () => {
  const held = (workload: IDeployment | IJob) => secretsOf(podSpec(workload));

  it.each(APPS)('%s holds exactly its own Secrets', (app) => {
    expect([...held(named(deployments, app)).keys()].sort()).toEqual([...SECRETS_HELD[app]].sort());
  });

  it('leaves the seed and the relayer key to the settlement-worker alone', () => {
    const holders = (secret: string) => everyWorkload.filter(([, workload]) => held(workload).has(secret)).map(([name]) => name);
    expect(holders('gateway-settlement-seed')).toEqual(['settlement-worker']);
    expect(holders('gateway-relayer')).toEqual(['settlement-worker']);
  });

  it("gives each app a database login of its own, and the owner's to the migration Job only", () => {
    const logins = workloads.map(([name, workload]) => [
      name,
      [...held(workload).keys()].filter((secret) => secret.startsWith('gateway-db-')),
    ]);
    expect(Object.fromEntries(logins)).toEqual({
      ...Object.fromEntries(APPS.map((app) => [app, [`gateway-db-${app}`]])),
      'gateway-migrate': ['gateway-db-owner'],
      'gateway-redis-acl': [],
    });
  });

  it("gives each app a Redis user of its own, made by the redis-acl Job, which alone holds the admin's", () => {
    const redisSecrets = workloads.map(([name, workload]) => [
      name,
      [...held(workload).keys()].filter((secret) => secret.startsWith('gateway-redis-')).sort(),
    ]);
    expect(Object.fromEntries(redisSecrets)).toEqual({
      ...Object.fromEntries(APPS.map((app) => [app, [`gateway-redis-${app}`]])),
      'gateway-migrate': [],
      'gateway-redis-acl': [...SECRETS_HELD['redis-acl']].sort(),
    });
    const container = podSpec(named(jobs, 'gateway-redis-acl')).containers[0] as IContainer;
    expect(container.image).toMatch(/^gateway\/cli:/);
    expect(container.command).toEqual(['node', 'dist/main.js', 'redis', 'acl', '--apply']);
    const files = mountedFiles(podSpec(named(jobs, 'gateway-redis-acl')), container);
    for (const app of APPS) {
      const variable = container.env?.find((candidate) => candidate.name === `${app.toUpperCase().replaceAll('-', '_')}_REDIS_URL_FILE`);
      expect([app, files.has(variable?.value as string)]).toEqual([app, true]);
    }
  });

  it('has every Secret and key the workloads read in secrets.example.yaml, with placeholders only', () => {
    const example = ofKind<ISecret>(secretsExample, 'Secret');
    for (const [, workload] of everyWorkload) {
      for (const [secret, keys] of held(workload)) {
        const shape = example.find((candidate) => candidate.metadata?.name === secret);
        expect([secret, shape !== undefined]).toEqual([secret, true]);
        for (const key of keys) expect([secret, key, key in { ...shape?.stringData, ...shape?.data }]).toEqual([secret, key, true]);
      }
    }
    for (const shape of example) for (const value of Object.values(shape.stringData ?? {})) expect(value).toContain('REPLACE-ME');
    expect(example.every((shape) => shape.data === undefined)).toBe(true);
  });
});

describe('scaling and disruptions', () => {
  it.each(AUTOSCALED)('%s scales with a HorizontalPodAutoscaler from two replicas, which owns its count', (app) => {
    const hpa = hpas.find((candidate) => candidate.spec?.scaleTargetRef.name === app);
    expect(hpa?.spec?.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: app });
    expect(hpa?.spec?.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa?.spec?.maxReplicas).toBeGreaterThanOrEqual(hpa?.spec?.minReplicas as number);
    expect(hpa?.spec?.metrics?.map((metric) => metric.resource?.name)).toContain('cpu');
    expect(named(deployments, app).spec?.replicas).toBeUndefined();
  });

  it('runs the chain-watcher as one leader and one standby, never autoscaled', () => {
    expect(hpas.filter((hpa) => hpa.spec?.scaleTargetRef.name === 'chain-watcher')).toEqual([]);
    expect(named(deployments, 'chain-watcher').spec?.replicas).toBe(2);
  });

  it.each(APPS)('%s has a PodDisruptionBudget that keeps one pod and still lets a node drain', (app) => {
    const labels = template(named(deployments, app)).metadata?.labels;
    const budgets = pdbs.filter((pdb) => pdb.spec?.selector && selects(pdb.spec.selector, labels));
    expect(budgets).toHaveLength(1);
    const spec = budgets[0]?.spec;
    const fewest =
      hpas.find((hpa) => hpa.spec?.scaleTargetRef.name === app)?.spec?.minReplicas ?? (named(deployments, app).spec?.replicas as number);
    const unavailable = spec?.maxUnavailable !== undefined ? Number(spec.maxUnavailable) : fewest - Number(spec?.minAvailable);
    expect(unavailable).toBeGreaterThanOrEqual(1);
    expect(fewest - unavailable).toBeGreaterThanOrEqual(1);
    expect(spec?.unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
  });
});

describe('network policies', () => {
  const pods = [
    ...APPS.map((app) => [app, template(named(deployments, app))] as const),
    ['gateway-migrate', template(named(jobs, 'gateway-migrate'))] as const,
  ];
  const applying = (labels: Record<string, string> | undefined, type: 'Ingress' | 'Egress') =>
    policies.filter((policy) => policy.spec?.policyTypes?.includes(type) && selects(policy.spec.podSelector, labels));
  const egressOf = (labels?: Record<string, string>) => applying(labels, 'Egress').flatMap((policy) => policy.spec?.egress ?? []);
  const ingressOf = (labels?: Record<string, string>) => applying(labels, 'Ingress').flatMap((policy) => policy.spec?.ingress ?? []);
  const toInternet = (labels?: Record<string, string>) =>
    egressOf(labels).filter((rule) => (rule.to ?? []).some((peer) => peer.ipBlock?.cidr === '0.0.0.0/0' || peer.ipBlock?.cidr === '::/0'));
  const reachesPort = (labels: Record<string, string> | undefined, port: number) =>
    egressOf(labels).some((rule) => (rule.ports ?? []).some((p: INetworkPolicyPort) => p.port === port));

  it('deny everything by default', () => {
    const deny = policies.filter(
      (policy) => Object.keys(policy.spec?.podSelector ?? {}).length === 0 && !policy.spec?.ingress && !policy.spec?.egress,
    );
    expect(deny.flatMap((policy) => policy.spec?.policyTypes ?? []).sort()).toEqual(['Egress', 'Ingress']);
    for (const rule of [...policies.flatMap((policy) => policy.spec?.egress ?? [])]) expect(rule.to?.length).toBeGreaterThan(0);
  });

  it('let only the callback-worker, the API apps and the Alertmanager reach the internet, never private or metadata addresses', () => {
    const everyPod = [...pods, [ALERTMANAGER, template(alertmanager)] as const];
    expect(
      everyPod
        .filter(([, pod]) => toInternet(pod.metadata?.labels).length > 0)
        .map(([name]) => name)
        .sort(),
    ).toEqual(['callback-worker', ALERTMANAGER, 'payment-redirect', 'wallet-control']);
    for (const [name, pod] of everyPod) {
      for (const rule of toInternet(pod.metadata?.labels)) {
        for (const peer of rule.to ?? []) {
          if (peer.ipBlock?.cidr === '0.0.0.0/0')
            expect(peer.ipBlock.except).toEqual(
              expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '127.0.0.0/8']),
            );
          if (peer.ipBlock?.cidr === '::/0')
            expect(peer.ipBlock.except).toEqual(expect.arrayContaining(['fc00::/7', 'fe80::/10', '::1/128']));
        }
        // The API apps call providers and the rate source, the Alertmanager PagerDuty and the ticket webhook, over https only.
        if (API_APPS.includes(name as App) || name === ALERTMANAGER) expect(rule.ports).toEqual([{ protocol: 'TCP', port: 443 }]);
      }
    }
  });

  it.each(pods.map(([name, pod]) => [name, pod] as const))('let %s resolve names and reach PostgreSQL', (_name, pod) => {
    expect(
      egressOf(pod.metadata?.labels).some((rule) => (rule.ports ?? []).some((port) => port.port === 53 && port.protocol === 'UDP')),
    ).toBe(true);
    expect(reachesPort(pod.metadata?.labels, 5432)).toBe(true);
  });

  it('let every app reach Redis, and the chain-watcher and the settlement-worker alone the RPC node', () => {
    for (const app of APPS) expect([app, reachesPort(template(named(deployments, app)).metadata?.labels, 6379)]).toEqual([app, true]);
    expect(
      pods
        .filter(([, pod]) => reachesPort(pod.metadata?.labels, 8545))
        .map(([name]) => name)
        .sort(),
    ).toEqual(['chain-watcher', 'settlement-worker']);
  });

  it('let in the ingress controller on the public ports and Prometheus on the metrics ports, nothing else', () => {
    const fromNamespaces = (rule: NonNullable<ReturnType<typeof ingressOf>[number]>) =>
      new Set((rule.from ?? []).map((peer) => peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name']));
    for (const [name, pod] of pods) {
      const rules = ingressOf(pod.metadata?.labels);
      for (const rule of rules) {
        expect(rule.from?.length).toBeGreaterThan(0);
        expect(rule.ports?.length).toBeGreaterThan(0);
        for (const port of rule.ports ?? []) {
          expect([name, port.port]).toEqual([name, expect.stringMatching(/^(http|metrics)$/)]);
          expect(fromNamespaces(rule)).toEqual(new Set([port.port === 'http' ? 'ingress-nginx' : 'monitoring']));
        }
      }
      const ports = new Set(rules.flatMap((rule) => (rule.ports ?? []).map((port) => port.port)));
      const expected = name === 'gateway-migrate' ? [] : API_APPS.includes(name as App) ? ['http', 'metrics'] : ['metrics'];
      expect([name, [...ports].sort()]).toEqual([name, expected]);
    }
  });

  it("let in the Alertmanager's port from Prometheus only, and let it out to names, https and nothing of the site", () => {
    const labels = template(alertmanager).metadata?.labels;
    const rules = ingressOf(labels);
    expect(rules).toHaveLength(1);
    expect(rules[0]?.from).toEqual([
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
      },
    ]);
    expect(rules[0]?.ports).toEqual([{ protocol: 'TCP', port: 'web' }]);
    expect(alertmanagerContainer.ports).toEqual([{ name: 'web', containerPort: 9093 }]);
    expect(egressOf(labels).some((rule) => (rule.ports ?? []).some((port) => port.port === 53 && port.protocol === 'UDP'))).toBe(true);
    for (const port of [5432, 6379, 8545]) expect([port, reachesPort(labels, port)]).toEqual([port, false]);
  });
});

describe('the Alertmanager', () => {
  const spec = podSpec(alertmanager);
  const args = alertmanagerContainer.args ?? [];
  const flag = (name: string) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const mountOf = (path: string) => alertmanagerContainer.volumeMounts?.find((mount) => mount.mountPath === path);
  const volumeOf = (path: string) => spec.volumes?.find((volume) => volume.name === mountOf(path)?.name);
  const config = readFileSync(join(REPO, 'infra/alertmanager/alertmanager.yml'), 'utf8');

  it('runs the pinned image docker-compose.yml runs, with requests, limits and no privileges', () => {
    expect(composeAlertmanagerImage).toMatch(/^prom\/alertmanager:v\d+\.\d+\.\d+$/);
    expectPinnedAndLockedDown(spec, new RegExp(`^${composeAlertmanagerImage?.replace(/[.]/g, '\\.')}$`), 65534);
    expect(spec.containers).toHaveLength(1);
  });

  it('has readiness (/-/ready) and liveness (/-/healthy) probes on the port it serves', () => {
    expect(alertmanagerContainer.readinessProbe?.httpGet).toEqual({ path: '/-/ready', port: 'web' });
    expect(alertmanagerContainer.livenessProbe?.httpGet).toEqual({ path: '/-/healthy', port: 'web' });
    expect(flag('web.listen-address')).toBe(':9093');
  });

  it('reads the routing ConfigMap at /etc/alertmanager and each key file alertmanager.yml names from the receivers Secret', () => {
    expect(flag('config.file')).toBe('/etc/alertmanager/alertmanager.yml');
    const configMap = named(configMaps, volumeOf('/etc/alertmanager')?.configMap?.name as string);
    expect(configMap.metadata.name).toMatch(/^gateway-alertmanager-config-/);
    expect(Object.keys(configMap.data ?? {})).toContain('alertmanager.yml');
    const keyFiles = [...config.matchAll(/_file: (\S+)/g)].map(([, file]) => file as string);
    expect(keyFiles.length).toBeGreaterThan(0);
    const files = mountedFiles(spec, alertmanagerContainer);
    for (const file of keyFiles) expect([file, files.get(file)]).toEqual([file, 'gateway-alertmanager-receivers']);
    expect([...secretsOf(spec).keys()]).toEqual(['gateway-alertmanager-receivers']);
    for (const path of ['/etc/alertmanager', '/etc/alertmanager/secrets']) expect(mountOf(path)?.readOnly).toBe(true);
  });

  it('keeps its state (--storage.path) in an emptyDir, its one writable mount, and runs alone without gossip', () => {
    const storage = flag('storage.path') as string;
    expect(volumeOf(storage)?.emptyDir).toBeDefined();
    expect((alertmanagerContainer.volumeMounts ?? []).filter((mount) => !mount.readOnly).map((mount) => mount.mountPath)).toEqual([
      storage,
    ]);
    expect(alertmanager.spec?.replicas).toBe(1);
    expect(args).toContain('--cluster.listen-address=');
  });

  it('is reached through a ClusterIP Service on 9093', () => {
    const service = named(services, ALERTMANAGER);
    expect(service.spec?.type ?? 'ClusterIP').toBe('ClusterIP');
    expect(selects({ matchLabels: service.spec?.selector }, template(alertmanager).metadata?.labels)).toBe(true);
    expect(service.spec?.ports).toEqual([{ name: 'web', port: 9093, targetPort: 'web' }]);
  });
});

describe('the Ingress', () => {
  it('serves both public hosts over TLS, each with a certificate from cert-manager', () => {
    expect(ingresses.map((ingress) => ingress.metadata?.name).sort()).toEqual([
      'payment-redirect',
      'wallet-control',
      'wallet-control-admin',
    ]);
    for (const ingress of ingresses) {
      const tlsHosts = (ingress.spec?.tls ?? []).flatMap((tls) => (tls.secretName ? (tls.hosts ?? []) : []));
      const hosts = (ingress.spec?.rules ?? []).map((rule) => rule.host);
      expect(hosts.length).toBeGreaterThan(0);
      for (const host of hosts) expect(tlsHosts).toContain(host);
      expect(ingress.metadata?.annotations?.['cert-manager.io/cluster-issuer']).toEqual(expect.any(String));
    }
  });

  it("admits wallet-control's /admin routes only from the networks the site names, on the API host", () => {
    const admin = ingresses.find((ingress) => ingress.metadata?.name === 'wallet-control-admin');
    const api = ingresses.find((ingress) => ingress.metadata?.name === 'wallet-control');
    expect(admin?.metadata?.annotations?.['nginx.ingress.kubernetes.io/whitelist-source-range']).toBe('127.0.0.1/32');
    expect(admin?.spec?.rules?.map((rule) => rule.host)).toEqual(api?.spec?.rules?.map((rule) => rule.host));
    expect(admin?.spec?.rules?.flatMap((rule) => rule.http?.paths ?? [])).toEqual([
      { path: '/admin', pathType: 'Prefix', backend: { service: { name: 'wallet-control', port: { name: 'http' } } } },
    ]);
    // Every other Ingress leaves /admin to it: none names a longer path under /admin.
    for (const ingress of ingresses.filter((candidate) => candidate !== admin)) {
      for (const path of (ingress.spec?.rules ?? []).flatMap((rule) => rule.http?.paths ?? [])) expect(path.path).not.toMatch(/^\/admin/);
    }
  });

  it("routes only to the apps' public ports, never to metrics", () => {
    const backends = ingresses
      .flatMap((ingress) => (ingress.spec?.rules ?? []).flatMap((rule) => rule.http?.paths ?? []))
      .map((path) => path.backend.service);
    for (const backend of backends) {
      expect(backend?.port?.name).toBe('http');
      expect(named(services, backend?.name as string).spec?.ports?.find((port) => port.name === 'http')?.targetPort).toBe('http');
    }
  });
});

describe('Services', () => {
  it.each(APPS)('%s selects its pods and targets ports they declare', (app) => {
    const service = named(services, app);
    expect(selects({ matchLabels: service.spec?.selector }, template(named(deployments, app)).metadata?.labels)).toBe(true);
    const declared = (appContainer(app).ports ?? []).map((port) => port.name);
    for (const port of service.spec?.ports ?? []) expect(declared).toContain(port.targetPort);
  });
});

describe('the service accounts', () => {
  it('exist for every workload and mount no API token', () => {
    const accounts = [...production, ...migration].filter((m) => m.kind === 'ServiceAccount');
    for (const [, workload] of everyWorkload) {
      const account = accounts.find((candidate) => candidate.metadata.name === podSpec(workload).serviceAccountName);
      expect(account?.automountServiceAccountToken).toBe(false);
    }
  });
});
