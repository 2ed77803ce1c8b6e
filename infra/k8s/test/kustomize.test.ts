import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IDeployment } from 'kubernetes-models/apps/v1';
import type { IContainer, IPodSpec } from 'kubernetes-models/v1';
import { applyJsonPatch } from '../src/json-patch';
import { configMapHash, imageName, type Manifest, parseManifests, renderKustomization } from '../src/kustomize';

const K8S = join(__dirname, '..');
const OVERLAYS = ['overlays/production', 'overlays/production-migration'];

function kubectlPath(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const byId = (manifests: readonly Manifest[]) =>
  Object.fromEntries(
    manifests.map((manifest) => [`${manifest.kind} ${manifest.metadata.namespace ?? ''}/${manifest.metadata.name}`, manifest]),
  );

describe('the kustomize renderer', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kustomize-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const deployment = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata: { name: app }
spec:
  selector: { matchLabels: { app: x } }
  template:
    metadata: { labels: { app: x } }
    spec:
      containers:
        - name: app
          image: ${image}
          envFrom: [{ configMapRef: { name: app-settings } }]
      volumes:
        - { name: s, secret: { secretName: s, defaultMode: 0440 } }
`;

  it('renders resources, namespace, images, generated ConfigMaps and patches as kubectl kustomize does', () => {
    mkdirSync(join(dir, 'base'));
    writeFileSync(join(dir, 'base', 'app.yaml'), deployment('registry.local:5000/team/app:old'));
    writeFileSync(
      join(dir, 'base', 'kustomization.yaml'),
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [app.yaml]\n',
    );
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: ns1
resources: [base]
images: [{ name: registry.local:5000/team/app, newTag: "1.2.3" }]
configMapGenerator:
  - name: app-settings
    literals: ["A=1", "B=hello world", "C=off"]
patches:
  - target: { kind: Deployment, name: app }
    patch: |-
      - { op: add, path: /spec/template/spec/containers/0/env, value: [{ name: X, value: "1" }] }
      - { op: replace, path: /spec/template/metadata/labels/app, value: x }
`,
    );
    const manifests = byId(renderKustomization(dir));
    // `kubectl kustomize` (kustomize v5.5.0) printed this name for the same ConfigMap.
    expect(manifests['ConfigMap ns1/app-settings-4m2c7fbdd8']).toMatchObject({ data: { A: '1', B: 'hello world', C: 'off' } });
    const spec = (manifests['Deployment ns1/app'] as unknown as IDeployment).spec?.template.spec as IPodSpec;
    const container = spec.containers[0] as IContainer;
    expect(container.image).toBe('registry.local:5000/team/app:1.2.3');
    expect(container.envFrom).toEqual([{ configMapRef: { name: 'app-settings-4m2c7fbdd8' } }]);
    expect(container.env).toEqual([{ name: 'X', value: '1' }]);
    // YAML 1.1, as Kubernetes reads it: 0440 is octal.
    expect(spec.volumes?.[0]?.secret?.defaultMode).toBe(0o440);
  });

  it("renames references to a ConfigMap generated in a folder beside the referrer's, as kustomize does", () => {
    mkdirSync(join(dir, 'config'));
    writeFileSync(
      join(dir, 'config', 'kustomization.yaml'),
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nconfigMapGenerator: [{ name: app-config, literals: ["A=1"] }]\n',
    );
    writeFileSync(
      join(dir, 'app.yaml'),
      `${deployment('app')}        - { name: c, configMap: { name: app-config } }\n`.replace('app-settings', 'app-config'),
    );
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [app.yaml, config]\n',
    );
    const manifests = renderKustomization(dir);
    const hashed = `app-config-${configMapHash({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-config' }, data: { A: '1' } })}`;
    expect(manifests.filter((manifest) => manifest.kind === 'ConfigMap').map((manifest) => manifest.metadata.name)).toEqual([hashed]);
    const spec = (manifests[0] as unknown as IDeployment).spec?.template.spec as IPodSpec;
    expect(spec.containers[0]?.envFrom).toEqual([{ configMapRef: { name: hashed } }]);
    expect(spec.volumes?.[1]?.configMap?.name).toBe(hashed);
  });

  it('refuses what it does not render, rather than skipping it', () => {
    writeFileSync(join(dir, 'app.yaml'), deployment('app'));
    const write = (extra: string) =>
      writeFileSync(
        join(dir, 'kustomization.yaml'),
        `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [app.yaml]\n${extra}`,
      );
    write('commonLabels: { team: a }\n');
    expect(() => renderKustomization(dir)).toThrow(/commonLabels not supported/);
    write('patches: [{ target: { kind: Deployment, name: app }, patch: "spec: { replicas: 2 }" }]\n');
    expect(() => renderKustomization(dir)).toThrow(/JSON 6902/);
    write('patches: [{ target: { kind: Deployment, name: other }, patch: "[{ op: remove, path: /spec }]" }]\n');
    expect(() => renderKustomization(dir)).toThrow(/matches no resource/);
    write('patches: [{ target: { kind: Deployment, name: app }, patch: "[{ op: remove, path: /spec/nothing }]" }]\n');
    expect(() => renderKustomization(dir)).toThrow(/"nothing" does not exist/);
    write('resources: [app.yaml]\n');
    expect(() => renderKustomization(dir)).toThrow(/Map keys must be unique/);
  });

  it('reads image names with registry ports, tags and digests', () => {
    expect(imageName('gateway/app')).toBe('gateway/app');
    expect(imageName('gateway/app:0.1.0')).toBe('gateway/app');
    expect(imageName('registry:5000/gateway/app')).toBe('registry:5000/gateway/app');
    expect(imageName('registry:5000/gateway/app:1@sha256:abc')).toBe('registry:5000/gateway/app');
  });

  it('hashes a ConfigMap by its data only, as kustomize names it', () => {
    const configMap = (name: string, data: Record<string, string>): Manifest => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name },
      data,
    });
    expect(configMapHash(configMap('a', { B: 'hello world', A: '1', C: 'off' }))).toBe('4m2c7fbdd8');
    expect(configMapHash(configMap('b', { A: '1', B: 'hello world', C: 'off' }))).toBe('4m2c7fbdd8');
    expect(configMapHash(configMap('a', { A: '2', B: 'hello world', C: 'off' }))).not.toBe('4m2c7fbdd8');
  });

  it('applies JSON patches to a copy and refuses paths that do not resolve', () => {
    const original = { list: [1, 2], map: { a: 1 } };
    expect(
      applyJsonPatch(original, [
        { op: 'add', path: '/list/-', value: 3 },
        { op: 'add', path: '/list/0', value: 0 },
        { op: 'remove', path: '/map/a' },
        { op: 'add', path: '/map/b~1c', value: 2 },
        { op: 'replace', path: '/list/1', value: 9 },
      ]),
    ).toEqual({ list: [0, 9, 2, 3], map: { 'b/c': 2 } });
    expect(original).toEqual({ list: [1, 2], map: { a: 1 } });
    expect(() => applyJsonPatch(original, [{ op: 'add', path: '/list/5', value: 0 }])).toThrow(/not an index/);
    expect(() => applyJsonPatch(original, [{ op: 'replace', path: '/map/z', value: 0 }])).toThrow(/does not exist/);
    expect(() => applyJsonPatch(original, [{ op: 'add', path: '/none/x', value: 0 }])).toThrow(/does not exist/);
  });

  it('reads manifests as Kubernetes does and refuses documents that are not objects', () => {
    const [configMap] = parseManifests(
      '---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\ndata: { a: 0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359, b: 0x10, c: ' +
        'yes }\n---\n',
      's',
    );
    // Go reads a 160-bit hex number as the string it is; kubectl kustomize prints addresses so.
    expect(configMap?.data).toEqual({ a: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', b: 16, c: true });
    expect(() => parseManifests('kind: ConfigMap\nmetadata: { name: a }\n', 's')).toThrow(/apiVersion, kind and metadata.name/);
    expect(() => parseManifests('a: [\n', 's')).toThrow(/^s: /);
  });
});

// kubectl is not needed to render (the renderer above does); where it is installed, the overlays
// must render exactly as it renders them.
const kubectl = kubectlPath();
(kubectl ? describe : describe.skip)('the overlays, rendered by kubectl kustomize too', () => {
  it.each(OVERLAYS)('%s renders the same objects', (overlay) => {
    const output = execFileSync(kubectl as string, ['kustomize', join(K8S, overlay)], { encoding: 'utf8' });
    expect(byId(renderKustomization(join(K8S, overlay)))).toEqual(byId(parseManifests(output, `kubectl kustomize ${overlay}`)));
  });
});
