import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1';
import { renderKustomization } from '../src/kustomize';

// The single-machine front (infra/proxy/Caddyfile) against the Kubernetes one: the same two hosts,
// each forwarded to its app's public port only, /metrics never.
const CADDYFILE = join(__dirname, '..', '..', 'proxy', 'Caddyfile');
const PUBLIC_PORTS: Record<string, number> = { 'payment-redirect': 3200, 'wallet-control': 3100 };

interface SiteBlock {
  address: string;
  lines: string[];
}

/** The Caddyfile's top-level blocks with an address (the global options block has none). */
function siteBlocks(text: string): SiteBlock[] {
  const sites: SiteBlock[] = [];
  let depth = 0;
  let current: SiteBlock | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') continue;
    if (depth === 0 && line.endsWith('{')) {
      const address = line.slice(0, -1).trim();
      current = address ? { address, lines: [] } : undefined;
      if (current) sites.push(current);
    } else if (current && !(depth === 1 && line === '}')) {
      current.lines.push(line);
    }
    depth += (line.match(/{/g) ?? []).length - (line.match(/}/g) ?? []).length;
  }
  if (depth !== 0) throw new Error('unbalanced braces in the Caddyfile');
  return sites;
}

function caddyPath(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v caddy'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const sites = siteBlocks(readFileSync(CADDYFILE, 'utf8'));
const ingresses = renderKustomization(join(__dirname, '..', 'overlays', 'production')).filter(
  (m) => m.kind === 'Ingress',
) as unknown as IIngress[];
const hostOf = (app: string) =>
  ingresses.flatMap((ingress) => ingress.spec?.rules ?? []).find((rule) => rule.http?.paths[0]?.backend.service?.name === app)?.host;

describe('the Caddyfile', () => {
  it('serves the two hosts the Ingress serves, by name (so Caddy gets their certificates)', () => {
    expect(sites.map((site) => site.address).sort()).toEqual(Object.keys(PUBLIC_PORTS).map(hostOf).sort());
    for (const site of sites) expect(site.address).not.toMatch(/^(http:|:)/);
  });

  it.each(Object.entries(PUBLIC_PORTS))("forwards %s's host to its public port on loopback, and never /metrics", (app, port) => {
    const site = sites.find((candidate) => candidate.address === hostOf(app));
    const upstreams = site?.lines.filter((line) => line.startsWith('reverse_proxy')).map((line) => line.split(/\s+/)[1]);
    expect(upstreams).toEqual([`127.0.0.1:${port}`]);
    const metrics = site?.lines.indexOf('handle /metrics* {') ?? -1;
    expect(metrics).toBeGreaterThanOrEqual(0);
    expect(site?.lines[metrics + 1]).toBe('respond 404');
  });
});

const caddy = caddyPath();
(caddy ? it : it.skip)('is a configuration Caddy accepts (where caddy is installed)', () => {
  expect(() => execFileSync(caddy as string, ['adapt', '--config', CADDYFILE, '--adapter', 'caddyfile'], { stdio: 'pipe' })).not.toThrow();
});
