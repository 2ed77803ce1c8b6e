// The base's Alertmanager Deployment, started for real: its args, with each mount path moved to a
// folder holding what the volume holds (the rendered ConfigMap's files, made-up receiver keys, an
// empty storage folder) and its port to a free one, start Debian's prometheus-alertmanager (0.25;
// the image is 0.27, with the same flags), which loads the configuration and its template and
// answers the probes' paths. Skipped without the binary, and said so, except in CI.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IDeployment } from 'kubernetes-models/apps/v1';
import type { IConfigMap, IContainer, IPodSpec } from 'kubernetes-models/v1';
import { renderKustomization } from '../src/kustomize';

const BINARY = ['prometheus-alertmanager', 'alertmanager'].find((name) => spawnSync(name, ['--version']).status === 0);
if (!BINARY && !process.env.CI) {
  console.warn('Alertmanager is not installed (Debian: apt-get install prometheus-alertmanager): its start is not checked');
}

const production = renderKustomization(join(__dirname, '..', 'overlays/production'));
const deployment = production.find((m) => m.kind === 'Deployment' && m.metadata.name === 'gateway-alertmanager') as unknown as IDeployment;
const spec = deployment.spec?.template.spec as IPodSpec;
const container = spec.containers[0] as IContainer;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function status(url: string): Promise<number | undefined> {
  try {
    return (await fetch(url)).status;
  } catch {
    return undefined;
  }
}

(BINARY || process.env.CI ? describe : describe.skip)("the base's Alertmanager, started with its Deployment's args", () => {
  let dir: string;
  let child: ChildProcess | undefined;
  let log = '';
  afterAll(() => {
    child?.kill('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('loads the mounted configuration and answers /-/ready and /-/healthy', async () => {
    dir = mkdtempSync(join(tmpdir(), 'alertmanager-'));
    // Each mount, deepest first, as the folder standing in for its volume.
    const moved = new Map<string, string>();
    for (const mount of [...(container.volumeMounts ?? [])].sort((a, b) => b.mountPath.length - a.mountPath.length)) {
      const folder = join(dir, mount.name);
      mkdirSync(folder);
      moved.set(mount.mountPath, folder);
      const volume = spec.volumes?.find((candidate) => candidate.name === mount.name);
      if (volume?.configMap) {
        const configMap = production.find((m) => m.kind === 'ConfigMap' && m.metadata.name === volume.configMap?.name) as IConfigMap;
        for (const [file, content] of Object.entries(configMap.data ?? {})) writeFileSync(join(folder, file), content);
      }
      for (const item of volume?.secret?.items ?? []) writeFileSync(join(folder, item.path), 'made-up-not-a-key');
    }
    expect([...moved.keys()].sort()).toEqual(['/alertmanager', '/etc/alertmanager', '/etc/alertmanager/secrets']);
    const port = await freePort();
    const args = (container.args ?? []).map((arg) => {
      if (arg.startsWith('--web.listen-address=')) return `--web.listen-address=127.0.0.1:${port}`;
      const [flag, value = ''] = arg.split(/=(.*)/s);
      const mountPath = [...moved.keys()].find((path) => value === path || value.startsWith(`${path}/`));
      return mountPath ? `${flag}=${moved.get(mountPath)}${value.slice(mountPath.length)}` : arg;
    });
    expect(args).toContain(`--config.file=${join(dir, 'config')}/alertmanager.yml`);
    child = spawn(BINARY ?? 'prometheus-alertmanager', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
    });
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 20_000;
    while ((await status(`${base}/-/ready`)) !== 200 && Date.now() < deadline && child.exitCode === null)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect({ ready: await status(`${base}/-/ready`), exited: child.exitCode }).toEqual({ ready: 200, exited: null });
    expect(await status(`${base}/-/healthy`)).toBe(200);
    expect(log).toContain('Completed loading of configuration file');
    expect(log).not.toMatch(/level=error/);
  }, 30_000);
});
