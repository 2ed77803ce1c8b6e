import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The gateway's version is set in one place, the root package.json (`pnpm version:set`, which writes
// it into every app's and package's manifest: each app ships alone in its image); CHANGELOG.md has
// a section for it. The SDK and the example shop are versioned on their own.
const ROOT = join(__dirname, '..', '..', '..');
const versionOf = (folder: string) => (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string }).version;

it('every manifest of the gateway carries the root version, and CHANGELOG.md has its section', () => {
  const version = versionOf(ROOT);
  const folders = ['apps', 'packages', 'infra']
    .flatMap((group) => readdirSync(join(ROOT, group)).map((name) => join(ROOT, group, name)))
    .concat([join(ROOT, 'e2e'), join(ROOT, 'bench')])
    .filter((folder) => existsSync(join(folder, 'package.json')) && !folder.endsWith(join('packages', 'sdk')));
  expect(folders.length).toBeGreaterThan(20);
  // Out of step: `pnpm version:set <version>`.
  expect(folders.filter((folder) => versionOf(folder) !== version)).toEqual([]);
  expect(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')).toMatch(new RegExp(`^## ${version.replaceAll('.', '\\.')}\\b`, 'm'));
});

it('`pnpm version:set` also retags every gateway image in the compose files and the Kubernetes overlays', () => {
  // On a copy of the files it writes, so the checkout keeps its version.
  const copy = mkdtempSync(join(tmpdir(), 'version-set-'));
  try {
    const files = [
      'package.json',
      'docker-compose.yml',
      'docker-compose.production.yml',
      'infra/k8s/overlays/production/kustomization.yaml',
      'infra/k8s/overlays/production-migration/kustomization.yaml',
      'scripts/set-version.mjs',
    ];
    for (const file of files) cpSync(join(ROOT, file), join(copy, file), { recursive: true });
    for (const group of ['apps', 'packages', 'infra']) mkdirSync(join(copy, group), { recursive: true });
    execFileSync(process.execPath, [join(copy, 'scripts', 'set-version.mjs'), '9.8.7'], { stdio: 'pipe' });
    const tags = files
      .filter((file) => /\.ya?ml$/.test(file))
      .flatMap((file) => [...readFileSync(join(copy, file), 'utf8').matchAll(/gateway\/[a-z-]+(?::|,\s*newTag:\s*)([^\s}]+)/g)])
      .map((match) => match[1]);
    expect(tags.length).toBeGreaterThan(20);
    expect(new Set(tags)).toEqual(new Set(['9.8.7']));
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
