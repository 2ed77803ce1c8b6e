import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
