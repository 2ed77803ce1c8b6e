// Lists the import circles among the TypeScript sources of apps/ and packages/ (static, dynamic and
// type-only imports alike; relative ones, and @gateway/* ones through each package's exports), and
// exits 1 if there is one. `npm test` runs it (a circle counts as a failure); alone:
// `node scripts/import-cycles.mjs`.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');
const SKIP = new Set(['node_modules', 'dist', 'coverage', 'reports', '.turbo', '.stryker-tmp']);

function sourcesUnder(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (SKIP.has(entry)) return [];
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return /\.tsx?$/.test(entry) && !entry.endsWith('.d.ts') ? [path] : [];
  });
}

const packageDirs = ['apps', 'packages'].flatMap((group) =>
  readdirSync(join(ROOT, group))
    .map((name) => join(ROOT, group, name))
    .filter((dir) => existsSync(join(dir, 'package.json'))),
);

/** `@gateway/x/sub` → the source file its exports name under the `@gateway/source` condition. */
const workspaceEntries = new Map();
for (const dir of packageDirs) {
  const { name, exports } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  for (const [subpath, target] of Object.entries(exports ?? {})) {
    const source = typeof target === 'object' ? target['@gateway/source'] : undefined;
    if (source) workspaceEntries.set(join(name, subpath), resolve(dir, source));
  }
}

function resolveFile(base) {
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile());
}

/** What `file` imports, each with whether only types cross (erased at compile time: no circle at run time). */
function importsOf(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const found = [];
  const typeOnly = (clause) =>
    clause.isTypeOnly ||
    (clause.namedBindings !== undefined &&
      clause.name === undefined &&
      ts.isNamedImports(clause.namedBindings) &&
      clause.namedBindings.elements.length > 0 &&
      clause.namedBindings.elements.every((element) => element.isTypeOnly));
  const walk = (node) => {
    if (ts.isImportDeclaration(node))
      found.push({ name: node.moduleSpecifier.text, types: node.importClause ? typeOnly(node.importClause) : false });
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier) found.push({ name: node.moduleSpecifier.text, types: node.isTypeOnly });
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && ts.isStringLiteral(node.arguments[0]))
      found.push({ name: node.arguments[0].text, types: false });
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      found.push({ name: node.argument.literal.text, types: true });
    ts.forEachChild(node, walk);
  };
  walk(source);
  return found
    .map(({ name, types }) => ({
      target: name.startsWith('.') ? resolveFile(resolve(dirname(file), name)) : workspaceEntries.get(name.replace(/\/$/, '')),
      types,
    }))
    .filter(({ target }) => target !== undefined);
}

const files = packageDirs.flatMap((dir) => sourcesUnder(dir));
const imports = new Map(files.map((file) => [file, importsOf(file)]));

// Tarjan's strongly connected components: every component of more than one file (or a file importing itself) is a circle.
function circlesOf(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const circles = [];
  let counter = 0;
  function visit(file) {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file), low.get(next)));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file), index.get(next)));
    }
    if (low.get(file) !== index.get(file)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) circles.push(component);
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

const runtime = circlesOf(
  new Map([...imports].map(([file, list]) => [file, list.filter(({ types }) => !types).map(({ target }) => target)])),
);
const all = circlesOf(new Map([...imports].map(([file, list]) => [file, list.map(({ target }) => target)])));
const print = (circle, kind) =>
  console.log(`${kind} (${circle.length} files):\n  ${circle.map((file) => relative(ROOT, file)).join('\n  ')}`);
for (const circle of runtime) print(circle, 'import circle');
const runtimeFiles = new Set(runtime.flat());
for (const circle of all.filter((circle) => !circle.some((file) => runtimeFiles.has(file))))
  print(circle, 'circle through type-only imports');
console.log(`${imports.size} files: ${runtime.length} import circle(s), ${all.length - runtime.length} more through type-only imports`);
// Type-only circles fail too: they cost nothing at run time, but they mean two files each need the
// other to be read, which is what a file of its own (state-moves.ts, provider-errors.ts) prevents.
process.exit(all.length === 0 ? 0 : 1);
