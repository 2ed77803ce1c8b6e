// The documentation's links hold: every relative link in the README, docs/ and the SDK's and the
// example shop's READMEs points at a file of this repository, and a link to a heading (#…) at a
// heading that page has (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  'packages/sdk/README.md',
  'examples/shop/README.md',
];

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
