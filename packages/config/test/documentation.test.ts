// The documentation's links hold: every relative link in the README, docs/ and the SDK's and the
// examples' READMEs points at a file of this repository (never out of it), and a link to a heading
// (#…) at a heading that page has (GitHub's anchors: lower case, punctuation dropped, spaces as
// hyphens). A reader has the repository only: no page names the specification or the design notes
// kept beside it, nor cites their sections; docs/api.md says the behaviour in its own words.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  'packages/sdk/README.md',
  'examples/shop/README.md',
  'examples/callback-verification/README.md',
];

/** What only a reader with the files beside the repository could follow: their paths, and section citations. */
const OUTSIDE_REFERENCES: readonly RegExp[] = [
  /\.\.\/shared\//,
  /\bshared\/(spec|DESIGN)/,
  /gateway-spec(\.md)?/i,
  /\bDESIGN\.md\b/,
  /§/,
  /\bspec(ification)?('s)?\s+(section\s+\d+|\d+\.\d+)/i,
];

/** The places in `text` that name something outside the repository, with their line numbers. */
function outsideReferences(text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) =>
      OUTSIDE_REFERENCES.filter((pattern) => pattern.test(line)).map((pattern) => `line ${index + 1}: ${pattern.source}: ${line.trim()}`),
    );
}

/** Whether `target` lies inside the repository. */
function insideRepository(target: string): boolean {
  const path = relative(ROOT, target);
  return path === '' || (!path.startsWith(`..${sep}`) && path !== '..' && !isAbsolute(path));
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const anchors = new Set<string>();
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const plain = heading!.replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    anchors.add(
      plain
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\- _]/gu, '')
        .replace(/ /g, '-'),
    );
  }
  return anchors;
}

/** The relative links of a page, outside code blocks and code spans. */
function linksOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target!).filter((target) => !/^[a-z]+:/i.test(target));
}

it.each(PAGES)('%s: every relative link resolves to a file, and every anchor to a heading', (page) => {
  const file = join(ROOT, page);
  const broken: string[] = [];
  for (const link of linksOf(file)) {
    const [path, anchor] = link.split('#') as [string, string | undefined];
    const target = path === '' ? file : join(dirname(file), decodeURIComponent(path));
    if (!insideRepository(target)) {
      broken.push(`${link}: leaves the repository`);
      continue;
    }
    if (!existsSync(target)) {
      broken.push(`${link}: no ${relative(ROOT, target)}`);
      continue;
    }
    if (anchor !== undefined && statSync(target).isFile() && target.endsWith('.md') && !anchorsOf(target).has(anchor)) {
      broken.push(`${link}: ${relative(ROOT, target)} has no heading #${anchor}`);
    }
  }
  expect(broken).toEqual([]);
});

it('the README keeps what the project is, the two commands, the table of contents and the map, and links every page of docs/', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  expect(readme.match(/^## .+$/gm)).toEqual(['## Quick start', '## Documentation', '## Layout']);
  expect(readme).toContain('npm run demo');
  expect(readme).toContain('npm test');
  for (const page of PAGES.filter((name) => name.startsWith('docs/'))) expect(readme).toContain(`](${page})`);
});

it.each(PAGES)('%s: names nothing outside the repository (no path beside it, no section of the specification)', (page) => {
  expect(outsideReferences(readFileSync(join(ROOT, page), 'utf8'))).toEqual([]);
});

it('the checks above catch a link out of the repository, a missing file or anchor, and a citation of the specification', () => {
  expect(insideRepository(join(ROOT, 'docs', '..', '..', 'shared', 'spec', 'gateway-spec.md'))).toBe(false);
  expect(insideRepository(join(ROOT, 'docs', 'api.md'))).toBe(true);
  expect(linksOf(join(ROOT, 'README.md')).length).toBeGreaterThan(10);
  for (const line of [
    'Specification: `../shared/spec/gateway-spec.md`',
    'as the design says (DESIGN.md)',
    'refused (spec 4.1: a real merchant URL)',
    'see spec §4.2',
    "the specification's section 2.3",
  ])
    expect(outsideReferences(line).length).toBeGreaterThan(0);
  expect(outsideReferences("the specification's 70 USD, a spec-compliant field")).toEqual([]);
});
