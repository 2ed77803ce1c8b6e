import { join } from 'node:path';
import ts from 'typescript';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import type { Manifest } from './kustomize';

/**
 * Checks manifests against the Kubernetes API's own schemas, as kubernetes-models generates them from
 * the OpenAPI document: types, enums, required fields and formats (its validators), and unknown
 * fields, which the API server refuses (kubectl's strict field validation) but those validators let
 * through: each manifest is type-checked as an object literal of the model's TypeScript interface,
 * where any field the schema does not have is an error.
 */

interface Model {
  validate(): void;
}

interface KnownKind {
  create: (data: Manifest) => Model;
  /** Module and interface of the kind's TypeScript type in kubernetes-models. */
  module: string;
  type: string;
}

/** A kind kubernetes-models has, filed under `<apiVersion> <kind>`, its type `I<kind>` in `<apiVersion>/<kind>`. */
function known(apiVersion: string, kind: string, model: new (data: never) => Model): [string, KnownKind] {
  return [
    `${apiVersion} ${kind}`,
    { create: (data) => new model(data as never), module: `kubernetes-models/${apiVersion}/${kind}`, type: `I${kind}` },
  ];
}

const KINDS: Record<string, KnownKind> = Object.fromEntries([
  known('apps/v1', 'Deployment', Deployment),
  known('autoscaling/v2', 'HorizontalPodAutoscaler', HorizontalPodAutoscaler),
  known('batch/v1', 'Job', Job),
  known('networking.k8s.io/v1', 'Ingress', Ingress),
  known('networking.k8s.io/v1', 'NetworkPolicy', NetworkPolicy),
  known('policy/v1', 'PodDisruptionBudget', PodDisruptionBudget),
  known('v1', 'ConfigMap', ConfigMap),
  known('v1', 'Secret', Secret),
  known('v1', 'Service', Service),
  known('v1', 'ServiceAccount', ServiceAccount),
]);

export function manifestName(manifest: Manifest): string {
  return `${manifest.kind} ${manifest.metadata.name}`;
}

/** Every problem of every manifest against its schema, each naming the manifest; empty when all are valid. */
export function schemaProblems(manifests: readonly Manifest[]): string[] {
  const problems: string[] = [];
  for (const manifest of manifests) {
    const kind = KINDS[`${manifest.apiVersion} ${manifest.kind}`];
    if (!kind) {
      problems.push(`${manifestName(manifest)}: ${manifest.apiVersion} ${manifest.kind} has no schema here (add it to KINDS)`);
      continue;
    }
    try {
      kind.create(manifest).validate();
    } catch (error) {
      problems.push(`${manifestName(manifest)}: ${(error as Error).message}`);
    }
  }
  return [...problems, ...unknownFieldProblems(manifests.filter((manifest) => KINDS[`${manifest.apiVersion} ${manifest.kind}`]))];
}

function unknownFieldProblems(manifests: readonly Manifest[]): string[] {
  // A file that is never written, in this package so that kubernetes-models resolves from it.
  const fileName = join(__dirname, '..', '__manifests__.ts');
  const imports = Object.values(KINDS).map(({ module, type }, index) => `import type { ${type} as T${index} } from '${module}';`);
  const typeOf = new Map(Object.keys(KINDS).map((key, index) => [key, `T${index}`]));
  // One manifest per line, so a diagnostic's line names its manifest.
  const lines = manifests.map(
    (manifest, index) => `export const m${index}: ${typeOf.get(`${manifest.apiVersion} ${manifest.kind}`)} = ${JSON.stringify(manifest)};`,
  );
  const source = [...imports, ...lines].join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    name === fileName ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === fileName || fileExists(name);
  const program = ts.createProgram([fileName], options, host);
  const file = program.getSourceFile(fileName);
  if (!file) throw new Error('the manifests could not be type-checked');
  return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((diagnostic) => {
    const line = diagnostic.start === undefined ? -1 : file.getLineAndCharacterOfPosition(diagnostic.start).line - imports.length;
    const manifest = manifests[line];
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    return manifest ? `${manifestName(manifest)}: ${message}` : message;
  });
}
