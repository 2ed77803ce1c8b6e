// The build's wiring (tsc -b, docs/deployment.md "Build"): each workspace package compiles on its own against
// what it declares, and resolves to its sources only under the @gateway/source condition.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const readJson = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));
// tsconfig files may hold comments; these ones hold none inside strings.
const readTsconfig = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8').replace(/^\s*\/\/.*$/gm, ''));

const folders = ['packages', 'apps', 'infra'].flatMap((parent) =>
  readdirSync(join(ROOT, parent))
    .map((name) => `${parent}/${name}`)
    .filter((folder) => existsSync(join(ROOT, folder, 'package.json'))),
);
const folderOf = new Map<string, string>(
  [...folders, 'bench', 'e2e', 'examples/shop'].map((folder) => [readJson(`${folder}/package.json`).name, folder]),
);
const workspaceDependencies = (dependencies: Record<string, string> = {}) => Object.keys(dependencies).filter((name) => folderOf.has(name));
const referencedFolders = (tsconfigPath: string) =>
  ((readTsconfig(tsconfigPath).references ?? []) as { path: string }[])
    .map(({ path }) => relative(ROOT, join(ROOT, tsconfigPath, '..', path)))
    .sort();
const built = folders.filter((folder) => readJson(`${folder}/package.json`).exports);
const withTests = built.filter((folder) => existsSync(join(ROOT, folder, 'test')));

describe('workspace projects', () => {
  it.each(built)('%s: its tsconfig references exactly its workspace dependencies', (folder) => {
    const manifest = readJson(`${folder}/package.json`);
    const expected = workspaceDependencies(manifest.dependencies).map((name) => folderOf.get(name));
    expect(referencedFolders(`${folder}/tsconfig.json`)).toEqual(expected.sort());
  });

  it.each(withTests)('%s: its tests reference the package and what it and they depend on', (folder) => {
    const manifest = readJson(`${folder}/package.json`);
    const names = new Set([...workspaceDependencies(manifest.dependencies), ...workspaceDependencies(manifest.devDependencies)]);
    expect(referencedFolders(`${folder}/test/tsconfig.json`)).toEqual([folder, ...[...names].map((name) => folderOf.get(name))].sort());
  });

  // The merchant SDK is published: its build is an ES module and a CommonJS one, each with its types.
  const published = 'packages/sdk';
  it.each(built.filter((folder) => folder !== published))(
    '%s: exports its sources under @gateway/source and its build by default, at every entry',
    (folder) => {
      const entries = Object.values(readJson(`${folder}/package.json`).exports) as Record<string, string>[];
      expect(entries.length).toBeGreaterThan(0);
      for (const entry of entries) {
        expect(Object.keys(entry)).toEqual(['@gateway/source', 'default']);
        expect(existsSync(join(ROOT, folder, entry['@gateway/source']!))).toBe(true);
        expect(entry.default).toBe(entry['@gateway/source']!.replace(/^\.\/src\//, './dist/').replace(/\.ts$/, '.js'));
      }
    },
  );

  it(`${published}: exports its sources under @gateway/source, its ES module to import and its CommonJS build to require`, () => {
    const entry = readJson(`${published}/package.json`).exports['.'];
    expect(Object.keys(entry)).toEqual(['@gateway/source', 'import', 'require']);
    expect(existsSync(join(ROOT, published, entry['@gateway/source']))).toBe(true);
    expect(entry.import).toEqual({ types: './dist/esm/index.d.mts', default: './dist/esm/index.mjs' });
    expect(entry.require).toEqual({
      types: entry['@gateway/source'].replace(/^\.\/src\//, './dist/cjs/').replace(/\.ts$/, '.d.ts'),
      default: entry['@gateway/source'].replace(/^\.\/src\//, './dist/cjs/').replace(/\.ts$/, '.js'),
    });
  });

  it('the root solution builds every project', () => {
    const projects = [...built, ...withTests.map((folder) => `${folder}/test`), 'bench', 'e2e', 'scripts', 'examples/shop'];
    expect(referencedFolders('tsconfig.json')).toEqual(expect.arrayContaining(projects.sort()));
  });
});
