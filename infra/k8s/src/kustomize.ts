import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseAllDocuments, visit } from 'yaml';
import { applyJsonPatch, type JsonPatchOperation } from './json-patch';

/**
 * Renders a kustomization as `kubectl apply -k` would, for the subset of kustomize these manifests
 * use: `resources` (files, and folders holding a kustomization), `namespace`, `images`,
 * `configMapGenerator` with `literals` or `files` (each file's name its key, inside the
 * kustomization's folder, as kustomize's load restrictor wants) and `options.labels`, and `patches` holding JSON 6902 operations with a
 * kind-and-name `target`. Any other field is refused, so nothing kubectl would apply is skipped
 * here unseen. The tests compare the output with `kubectl kustomize` where kubectl is installed.
 */

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export class KustomizeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KustomizeError';
  }
}

interface ImageOverride {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

interface ConfigMapGenerator {
  name: string;
  literals: string[];
  /** Paths relative to the kustomization's folder, read when the kustomization is. */
  files: { key: string; content: string }[];
  labels: Record<string, string>;
}

interface Patch {
  target: { kind: string; name: string };
  operations: JsonPatchOperation[];
}

interface Kustomization {
  namespace?: string;
  resources: string[];
  images: ImageOverride[];
  configMapGenerator: ConfigMapGenerator[];
  patches: Patch[];
}

const KUSTOMIZATION_FIELDS = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'images', 'configMapGenerator', 'patches']);

// Kinds without a namespace among those the namespace transformer could meet here.
const CLUSTER_SCOPED_KINDS = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'IngressClass',
  'PriorityClass',
  'StorageClass',
  'PersistentVolume',
]);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Every document of a YAML stream, read as Kubernetes reads manifests: YAML 1.1 (`0440` is octal,
 * `off` a boolean), and an integer beyond 64 bits is the string it was written as (Go's YAML finds
 * no integer in `0x3c49…` of 160 bits; kubectl kustomize prints an address so, unquoted). Each
 * document must be a Kubernetes object with a kind and a name.
 */
export function parseManifests(text: string, source: string): Manifest[] {
  const manifests: Manifest[] = [];
  for (const document of parseAllDocuments(text, { version: '1.1', uniqueKeys: true, intAsBigInt: true })) {
    const problem = document.errors[0];
    if (problem) throw new KustomizeError(`${source}: ${problem.message}`);
    visit(document, {
      Scalar(_key, node) {
        if (typeof node.value === 'bigint')
          node.value = node.value >= INT64_MIN && node.value <= INT64_MAX ? Number(node.value) : node.source;
      },
    });
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    if (!isManifest(value))
      throw new KustomizeError(`${source}: every document must be a Kubernetes object with apiVersion, kind and metadata.name`);
    manifests.push(value);
  }
  return manifests;
}

/** The objects `kubectl kustomize <dir>` prints, in the order they were read. */
export function renderKustomization(dir: string): Manifest[] {
  return render(dir).manifests;
}

/**
 * A kustomization's objects, and the generated ConfigMaps' names (as written → with their hash): a
 * kustomization that takes in another's objects renames its own references to those ConfigMaps too,
 * as kustomize does (a Deployment of the base mounting a ConfigMap generated in a folder beside it).
 */
function render(dir: string): { manifests: Manifest[]; renamed: Map<string, string> } {
  const file = join(dir, 'kustomization.yaml');
  const kustomization = readKustomization(file);
  let manifests: Manifest[] = [];
  const renamed = new Map<string, string>();
  for (const entry of kustomization.resources) {
    const path = resolve(dir, entry);
    const stat = statOrNothing(path);
    if (!stat) throw new KustomizeError(`${file}: resource ${entry} does not exist`);
    if (stat.isDirectory()) {
      const child = render(path);
      manifests.push(...child.manifests);
      for (const [from, to] of child.renamed) renamed.set(from, to);
    } else {
      manifests.push(...parseManifests(readFileSync(path, 'utf8'), path));
    }
  }
  for (const [from, to] of renamed) for (const manifest of manifests) renameConfigMapReferences(manifest, from, to);
  const generated = kustomization.configMapGenerator.map(generateConfigMap);
  manifests.push(...generated);
  // kustomize's order: patches, then the namespace, then images; generated names last.
  for (const patch of kustomization.patches) manifests = applyPatch(manifests, patch, file);
  if (kustomization.namespace !== undefined) {
    for (const manifest of manifests) if (!CLUSTER_SCOPED_KINDS.has(manifest.kind)) manifest.metadata.namespace = kustomization.namespace;
  }
  for (const manifest of manifests) overrideImages(manifest, kustomization.images);
  for (const configMap of generated) {
    const original = configMap.metadata.name;
    configMap.metadata.name = `${original}-${configMapHash(configMap)}`;
    for (const manifest of manifests) renameConfigMapReferences(manifest, original, configMap.metadata.name);
    renamed.set(original, configMap.metadata.name);
  }
  assertUniqueIds(manifests, file);
  return { manifests, renamed };
}

function readKustomization(file: string): Kustomization {
  const [document, ...more] = parseAllDocuments(readFileSync(file, 'utf8'), { version: '1.1', uniqueKeys: true });
  if (!document || more.length > 0) throw new KustomizeError(`${file}: must hold exactly one document`);
  if (document.errors[0]) throw new KustomizeError(`${file}: ${document.errors[0].message}`);
  const raw: unknown = document.toJS();
  if (!isRecord(raw)) throw new KustomizeError(`${file}: not a mapping`);
  const unknown = Object.keys(raw).filter((field) => !KUSTOMIZATION_FIELDS.has(field));
  if (unknown.length > 0)
    throw new KustomizeError(
      `${file}: ${unknown.join(', ')} not supported by this renderer (it knows ${[...KUSTOMIZATION_FIELDS].join(', ')})`,
    );
  if (raw.apiVersion !== 'kustomize.config.k8s.io/v1beta1' || raw.kind !== 'Kustomization') {
    throw new KustomizeError(`${file}: must be apiVersion kustomize.config.k8s.io/v1beta1, kind Kustomization`);
  }
  if (raw.namespace !== undefined && typeof raw.namespace !== 'string') throw new KustomizeError(`${file}: namespace must be a string`);
  return {
    ...(raw.namespace !== undefined ? { namespace: raw.namespace } : {}),
    resources: listOf(raw.resources, `${file}: resources`, (entry) => (typeof entry === 'string' ? entry : undefined)),
    images: listOf(raw.images, `${file}: images`, readImageOverride),
    configMapGenerator: listOf(raw.configMapGenerator, `${file}: configMapGenerator`, (entry) => readGenerator(entry, file)),
    patches: listOf(raw.patches, `${file}: patches`, (entry) => readPatch(entry, file)),
  };
}

function listOf<T>(value: unknown, what: string, read: (entry: unknown) => T | undefined): T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new KustomizeError(`${what} must be a list`);
  return value.map((entry, index) => {
    const parsed = read(entry);
    if (parsed === undefined) throw new KustomizeError(`${what}[${index}] is not supported: ${JSON.stringify(entry)}`);
    return parsed;
  });
}

function readImageOverride(entry: unknown): ImageOverride | undefined {
  if (!isRecord(entry) || typeof entry.name !== 'string') return undefined;
  const fields = ['name', 'newName', 'newTag', 'digest'];
  if (
    Object.keys(entry).some((key) => !fields.includes(key)) ||
    fields.some((key) => entry[key] !== undefined && typeof entry[key] !== 'string')
  )
    return undefined;
  return entry as unknown as ImageOverride;
}

function readGenerator(entry: unknown, file: string): ConfigMapGenerator | undefined {
  if (!isRecord(entry) || typeof entry.name !== 'string') return undefined;
  if (Object.keys(entry).some((key) => !['name', 'literals', 'files', 'options'].includes(key))) return undefined;
  const literals = entry.literals ?? [];
  const files = entry.files ?? [];
  if (!Array.isArray(literals) || !literals.every((literal) => typeof literal === 'string' && /^[-._a-zA-Z0-9]+=/.test(literal)))
    return undefined;
  if (!Array.isArray(files) || !files.every((path) => typeof path === 'string' && !path.includes('=') && !path.startsWith('/')))
    return undefined;
  const options = entry.options ?? {};
  if (!isRecord(options) || Object.keys(options).some((key) => key !== 'labels')) return undefined;
  const labels = options.labels ?? {};
  if (!isRecord(labels) || !Object.values(labels).every((value) => typeof value === 'string')) return undefined;
  const dir = resolve(file, '..');
  return {
    name: entry.name,
    literals: literals as string[],
    files: (files as string[]).map((path) => {
      const full = resolve(dir, path);
      if (!full.startsWith(`${dir}/`))
        throw new KustomizeError(`${file}: ${path} is outside the kustomization's folder (kustomize refuses it)`);
      return { key: basename(full), content: readFileSync(full, 'utf8') };
    }),
    labels: labels as Record<string, string>,
  };
}

function readPatch(entry: unknown, file: string): Patch | undefined {
  if (!isRecord(entry) || typeof entry.patch !== 'string' || !isRecord(entry.target)) return undefined;
  const { target } = entry;
  if (Object.keys(entry).some((key) => key !== 'patch' && key !== 'target')) return undefined;
  if (typeof target.kind !== 'string' || typeof target.name !== 'string' || Object.keys(target).length !== 2) return undefined;
  const document = parseAllDocuments(entry.patch, { version: '1.1' })[0];
  const operations: unknown = document?.toJS();
  if (document?.errors[0] || !Array.isArray(operations))
    throw new KustomizeError(`${file}: a patch must be a list of JSON 6902 operations (strategic merge patches are not supported here)`);
  for (const operation of operations) {
    const valid =
      isRecord(operation) &&
      typeof operation.path === 'string' &&
      (operation.op === 'remove' || ((operation.op === 'add' || operation.op === 'replace') && 'value' in operation));
    if (!valid) throw new KustomizeError(`${file}: unsupported patch operation ${JSON.stringify(operation)} (add, remove and replace are)`);
  }
  return { target: { kind: target.kind, name: target.name }, operations: operations as JsonPatchOperation[] };
}

function applyPatch(manifests: Manifest[], patch: Patch, file: string): Manifest[] {
  let matched = false;
  const patched = manifests.map((manifest) => {
    if (manifest.kind !== patch.target.kind || manifest.metadata.name !== patch.target.name) return manifest;
    matched = true;
    try {
      return applyJsonPatch(manifest, patch.operations);
    } catch (error) {
      throw new KustomizeError(`${file}: patch of ${patch.target.kind}/${patch.target.name}: ${(error as Error).message}`);
    }
  });
  if (!matched) throw new KustomizeError(`${file}: the patch target ${patch.target.kind}/${patch.target.name} matches no resource`);
  return patched;
}

function generateConfigMap({ name, literals, files, labels }: ConfigMapGenerator): Manifest {
  const data: Record<string, string> = {};
  const entries = [
    ...literals.map((literal) => [literal.slice(0, literal.indexOf('=')), literal.slice(literal.indexOf('=') + 1)] as const),
    ...files.map(({ key, content }) => [key, content] as const),
  ];
  for (const [key, value] of entries) {
    if (Object.hasOwn(data, key)) throw new KustomizeError(`configMapGenerator ${name}: ${key} is given twice`);
    data[key] = value;
  }
  const metadata = Object.keys(labels).length > 0 ? { name, labels } : { name };
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata, data };
}

/**
 * kustomize's name suffix: the sha256 of the ConfigMap's kind, name and data as Go's encoding/json
 * writes them (keys sorted, <, > and & escaped), its first ten hex digits with 0 1 3 a e swapped
 * for g h k m t. The name enters as "": the kustomize in kubectl looks `metadata/name` up as one
 * field and finds none.
 */
export function configMapHash(configMap: Manifest): string {
  const data = isRecord(configMap.data) ? configMap.data : {};
  const json = goJson({ data: sortKeys(data), kind: 'ConfigMap', name: '' });
  const hex = createHash('sha256').update(json).digest('hex').slice(0, 10);
  const swap: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...hex].map((digit) => swap[digit] ?? digit).join('');
}

function goJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function sortKeys(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `registry:5000/team/app:1.2@sha256:…` → its name without tag or digest. */
export function imageName(reference: string): string {
  const withoutDigest = reference.split('@')[0] as string;
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.indexOf(':', lastSlash + 1);
  return colon === -1 ? withoutDigest : withoutDigest.slice(0, colon);
}

function overrideImages(node: unknown, overrides: readonly ImageOverride[]): void {
  if (overrides.length === 0 || typeof node !== 'object' || node === null) return;
  if (Array.isArray(node)) {
    for (const item of node) overrideImages(item, overrides);
    return;
  }
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'containers' || key === 'initContainers') && Array.isArray(value)) {
      for (const container of value)
        if (isRecord(container) && typeof container.image === 'string') container.image = overriddenImage(container.image, overrides);
    } else {
      overrideImages(value, overrides);
    }
  }
}

function overriddenImage(reference: string, overrides: readonly ImageOverride[]): string {
  const name = imageName(reference);
  const override = overrides.find((candidate) => candidate.name === name);
  if (!override) return reference;
  const kept = reference.slice(name.length);
  const suffix = override.digest !== undefined ? `@${override.digest}` : override.newTag !== undefined ? `:${override.newTag}` : kept;
  return `${override.newName ?? name}${suffix}`;
}

/** Where pods name a ConfigMap: envFrom, env valueFrom, volumes and projected volumes. */
function renameConfigMapReferences(node: unknown, from: string, to: string): void {
  if (typeof node !== 'object' || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'configMapRef' || key === 'configMapKeyRef' || key === 'configMap') && isRecord(value) && value.name === from)
      value.name = to;
    else renameConfigMapReferences(value, from, to);
  }
}

function assertUniqueIds(manifests: readonly Manifest[], file: string): void {
  const seen = new Set<string>();
  for (const { apiVersion, kind, metadata } of manifests) {
    const id = `${apiVersion} ${kind} ${metadata.namespace ?? ''}/${metadata.name}`;
    if (seen.has(id)) throw new KustomizeError(`${file}: ${kind} ${metadata.name} is defined twice`);
    seen.add(id);
  }
}

function statOrNothing(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function isManifest(value: unknown): value is Manifest {
  return (
    isRecord(value) &&
    typeof value.apiVersion === 'string' &&
    typeof value.kind === 'string' &&
    isRecord(value.metadata) &&
    typeof value.metadata.name === 'string' &&
    value.metadata.name !== ''
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
