import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appNodeArguments } from '../src/app-process';

const ROOT = join(__dirname, '..', '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('how app processes are started', () => {
  it('runs the API apps with the measured heap limits, the workers with none', () => {
    for (const app of ['wallet-control', 'payment-redirect']) {
      expect(appNodeArguments(app)).toEqual(expect.arrayContaining(['--max-old-space-size=96', '--max-semi-space-size=8']));
    }
    for (const app of ['chain-watcher', 'settlement-worker', 'callback-worker', 'sandbox-provider']) {
      expect(appNodeArguments(app).some((flag) => flag.startsWith('--max-'))).toBe(false);
    }
  });

  it('gives the deployment manifests the same heap limits the local stack and the bench use', () => {
    for (const app of ['wallet-control', 'payment-redirect']) {
      const heapFlags = appNodeArguments(app).filter((flag) => flag.startsWith('--max-'));
      const nodeOptions = /name: NODE_OPTIONS, value: "([^"]*)"/.exec(read(`infra/k8s/${app}.yaml`))?.[1];
      expect(nodeOptions?.split(' ').sort()).toEqual([...heapFlags].sort());
    }
  });

  it('starts TypeScript the same way in the image', () => {
    const runner = appNodeArguments('callback-worker').join(' ');
    expect(read('infra/docker/Dockerfile')).toContain(`exec node ${runner} apps/\${APP}/src/main.ts`);
  });
});
