// Builds the package a merchant installs: CommonJS with its type declarations by tsc (dist/cjs, the
// project's own `tsc -b`), and an ES module bundled from the same sources by esbuild (dist/esm),
// whose declarations re-export the CommonJS ones (the API is the same; one set of types to keep).
// Run by `pnpm build` and by `npm pack` (prepack). Plain Node, no arguments.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const here = import.meta.dirname;
const tsc = spawnSync('tsc', ['-b'], { cwd: here, stdio: 'inherit', shell: false, env: withLocalBin() });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

const esm = join(here, 'dist', 'esm');
rmSync(esm, { recursive: true, force: true });
mkdirSync(esm, { recursive: true });
await build({
  entryPoints: [join(here, 'src', 'index.ts')],
  outfile: join(esm, 'index.mjs'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  // The oldest Node the README promises merchants.
  target: 'node20',
  logLevel: 'warning',
});
writeFileSync(join(esm, 'index.d.mts'), "export * from '../cjs/index.js';\n");
// The project's licence travels in the tarball (npm packs a LICENSE beside package.json); one copy is kept, at the root.
copyFileSync(join(here, '..', '..', 'LICENSE'), join(here, 'LICENSE'));

/** PATH with this workspace's bin folders first, so `tsc` is the locked TypeScript. */
function withLocalBin() {
  const bins = [join(here, 'node_modules', '.bin'), join(here, '..', '..', 'node_modules', '.bin')];
  return { ...process.env, PATH: [...bins, process.env.PATH].join(':') };
}
