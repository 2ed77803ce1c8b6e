import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appEntry, appNodeArguments } from '../src/app-process';

const ROOT = join(__dirname, '..', '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const API_APPS = ['wallet-control', 'payment-redirect'];
const WORKERS = ['chain-watcher', 'settlement-worker', 'callback-worker', 'sandbox-provider'];
const heapFlagsOf = (args: string[]) => args.filter((flag) => flag.startsWith('--max-'));

describe('how app processes are started', () => {
  it('runs the API apps with the measured heap limits, the workers with none, from source or from dist', () => {
    for (const runtime of ['source', 'dist'] as const) {
      for (const app of API_APPS) {
        expect(appNodeArguments(app, runtime)).toEqual(expect.arrayContaining(['--max-old-space-size=96', '--max-semi-space-size=8']));
      }
      for (const app of WORKERS) expect(heapFlagsOf(appNodeArguments(app, runtime))).toEqual([]);
    }
  });

  it('runs source through tsx with the export condition that resolves workspace packages to src/', () => {
    const args = appNodeArguments('callback-worker', 'source');
    expect(args).toEqual(['--conditions=@gateway/source', '--require', 'tsx/cjs']);
    expect(appEntry('callback-worker', 'source')).toBe('apps/callback-worker/src/main.ts');
  });

  it("runs dist with plain node, as each app's start script and the image do", () => {
    for (const app of [...API_APPS, ...WORKERS]) {
      expect(appEntry(app, 'dist')).toBe(`apps/${app}/dist/main.js`);
      const start = JSON.parse(read(`apps/${app}/package.json`)).scripts.start;
      expect(start).toBe(['node', ...appNodeArguments(app, 'dist'), 'dist/main.js'].join(' '));
    }
    expect(read('infra/docker/Dockerfile')).toContain('CMD ["node", "dist/main.js"]');
  });

  it('gives the deployment manifests the same heap limits the local stack and the bench use', () => {
    for (const app of API_APPS) {
      const nodeOptions = /name: NODE_OPTIONS, value: "([^"]*)"/.exec(read(`infra/k8s/base/${app}.yaml`))?.[1];
      expect(nodeOptions?.split(' ').sort()).toEqual(heapFlagsOf(appNodeArguments(app, 'dist')).sort());
    }
  });
});
