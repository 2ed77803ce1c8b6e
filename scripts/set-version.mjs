// `pnpm version:set <version>`: the gateway's version, set in the root package.json (the one place it
// is decided) and written into every app's and package's manifest, which ship alone in the images,
// and into the tags of the gateway's images in the compose files and the Kubernetes overlays.
// The merchant SDK keeps its own version. packages/config/test/project-version.test.ts checks the
// manifests and that CHANGELOG.md has a section for the version; infra/k8s/test checks the tags.
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
/** Where the gateway's own images are named with their tag. */
const IMAGE_TAG_FILES = [
  'docker-compose.yml',
  'docker-compose.production.yml',
  'infra/k8s/overlays/production/kustomization.yaml',
  'infra/k8s/overlays/production-migration/kustomization.yaml',
];
const version = process.argv[2];
if (!/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(version ?? '')) {
  console.error('usage: pnpm version:set <major.minor.patch>, e.g. pnpm version:set 0.2.0');
  process.exit(2);
}
for (const manifest of gatewayManifests(root)) {
  const text = readFileSync(manifest, 'utf8');
  writeFileSync(manifest, text.replace(/("version":\s*")[^"]*(")/, `$1${version}$2`));
}
for (const file of IMAGE_TAG_FILES) {
  const path = join(root, file);
  const text = readFileSync(path, 'utf8');
  writeFileSync(
    path,
    text
      // compose: `image: gateway/<name>:<tag>`
      .replace(/(image:\s*gateway\/[a-z-]+:)[^\s]+/g, `$1${version}`)
      // kustomize: `{ name: gateway/<name>, newTag: <tag> }`
      .replace(/(name:\s*gateway\/[a-z-]+,\s*newTag:\s*)[^\s}]+/g, `$1${version}`),
  );
}
console.log(`version ${version} written; add its section to CHANGELOG.md`);

/** The root's manifest and every workspace manifest but the SDK's and the example shop's (a merchant's, versioned as theirs). */
function gatewayManifests(base) {
  const folders = ['apps', 'packages', 'infra'].flatMap((group) =>
    readdirSync(join(base, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(base, group, entry.name)),
  );
  return [base, ...folders, join(base, 'e2e'), join(base, 'bench')]
    .filter((folder) => !folder.endsWith(join('packages', 'sdk')))
    .map((folder) => join(folder, 'package.json'))
    .filter((manifest) => existsSync(manifest));
}
