// What `docker build .` sends to the builder: the folder minus what .dockerignore excludes, with
// Docker's rules (patterns in order, the last match wins, `!` takes a path back in, `*` and `?`
// within one path segment, `**` across any number of them, and a path is excluded when one of its
// parent folders is).
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

interface IgnoreRule {
  negated: boolean;
  pattern: RegExp;
  /** The folders before the pattern's first wildcard: a negated rule can only take back paths under it. */
  literalPrefix: string;
}

export function parseDockerignore(text: string): IgnoreRule[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const negated = line.startsWith('!');
      const glob = (negated ? line.slice(1) : line).trim().replace(/^\/+/, '').replace(/\/+$/, '');
      const wildcard = glob.search(/[*?[]/);
      return { negated, pattern: globToRegExp(glob), literalPrefix: wildcard === -1 ? glob : glob.slice(0, wildcard) };
    });
}

function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i]!;
    if (glob.startsWith('**/', i)) {
      source += '(?:.*/)?';
      i += 2;
    } else if (glob.startsWith('**', i)) {
      source += '.*';
      i += 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Index of the last rule matching `path` or one of its parent folders, or -1. */
function lastMatchingRule(rules: IgnoreRule[], path: string): number {
  const candidates = path.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));
  for (let i = rules.length - 1; i >= 0; i -= 1) {
    if (candidates.some((candidate) => rules[i]!.pattern.test(candidate))) return i;
  }
  return -1;
}

/** Whether `path` (relative, with /) is left out of the build context. */
export function isExcluded(rules: IgnoreRule[], path: string): boolean {
  const last = lastMatchingRule(rules, path);
  return last !== -1 && !rules[last]!.negated;
}

/** The folder `dir` is excluded and no later rule can take anything under it back in: the walk may skip it. */
function wholeFolderExcluded(rules: IgnoreRule[], dir: string): boolean {
  const last = lastMatchingRule(rules, dir);
  if (last === -1 || rules[last]!.negated) return false;
  return !rules
    .slice(last + 1)
    .some(
      (rule) =>
        rule.negated &&
        (rule.literalPrefix === '' ||
          rule.literalPrefix.startsWith(`${dir}/`) ||
          `${dir}/`.startsWith(`${rule.literalPrefix}/`) ||
          dir.startsWith(rule.literalPrefix)),
    );
}

/** Every file of the build context of `root`, relative to it. */
export function buildContextFiles(root: string): string[] {
  const rules = parseDockerignore(readFileSync(join(root, '.dockerignore'), 'utf8'));
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (wholeFolderExcluded(rules, path)) continue;
        walk(path);
      } else if (!isExcluded(rules, path)) files.push(path);
    }
  };
  walk('');
  return files.sort();
}

/** Copies the build context of `root` into `target`; returns the files copied. */
export function copyBuildContext(root: string, target: string): string[] {
  const files = buildContextFiles(root);
  for (const file of files) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    copyFileSync(join(root, file), join(target, file));
  }
  return files;
}
