// The compose files' promises, read from the files themselves: every app in the local stack, each
// waiting on what it needs in good health, and the production file mounting each secret only
// where it is used and refusing to start while one is missing. (scripts/check-compose.sh checks
// both with a real compose client.)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

const ROOT = join(__dirname, '..', '..', '..');
// apps/cli is the operator CLI: an image of its own (the Dockerfile's target cli), run per command, not a service.
const APPS = readdirSync(join(ROOT, 'apps')).filter((name) => name !== 'cli' && existsSync(join(ROOT, 'apps', name, 'package.json')));

interface Service {
  build?: { target?: string; args?: Record<string, string> };
  image?: string;
  restart?: string;
  read_only?: boolean;
  user?: string;
  entrypoint?: string[];
  command?: string[];
  environment?: Record<string, string>;
  secrets?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[] };
  profiles?: string[];
  volumes?: string[];
}
interface ComposeFile {
  services: Record<string, Service>;
  secrets?: Record<string, { file: string }>;
}

const load = (file: string) => parseYaml(readFileSync(join(ROOT, file), 'utf8'), { merge: true }) as ComposeFile;
const local = load('docker-compose.yml');
const production = load('docker-compose.production.yml');
const oneShot = (service: Service) => service.restart === 'no';

describe('docker-compose.yml (the local stack)', () => {
  it('runs every app from its own image, read-only, plus PostgreSQL, Redis, the chain, the init, the demo merchant and the demo order', () => {
    for (const app of APPS) {
      expect(local.services[app]).toMatchObject({ build: { args: { APP: app } }, image: `gateway/${app}:0.1.0`, read_only: true });
    }
    expect(Object.keys(local.services).sort()).toEqual(
      [
        ...APPS,
        'chain',
        'demo-merchant',
        'demo-order',
        'init',
        'postgres',
        'redis',
        'redis-acl',
        'prometheus',
        'alertmanager',
        'grafana',
      ].sort(),
    );
    expect(local.services['redis-acl']!.build?.target).toBe('cli');
    expect(local.services.chain!.build?.target).toBe('local-chain');
    for (const tool of ['init', 'demo-merchant', 'demo-order']) expect(local.services[tool]!.build?.target).toBe('local-tools');
  });

  it('health-checks every long-running service and starts each after what it depends on is healthy or done', () => {
    for (const [name, service] of Object.entries(local.services)) {
      if (!oneShot(service)) expect([name, service.healthcheck?.test[0]]).toEqual([name, 'CMD']);
      expect(Array.isArray(service.depends_on)).toBe(false);
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        const expected = oneShot(local.services[dependency]!) ? 'service_completed_successfully' : 'service_healthy';
        expect([name, dependency, condition]).toEqual([name, dependency, expected]);
      }
    }
    for (const app of APPS) expect(Object.keys(local.services[app]!.depends_on ?? {})).toContain('init');
  });

  it('runs Prometheus (the rules, the compose scrape config), Alertmanager (its routing) and Grafana (the dashboard) only under the observability profile', () => {
    const observability = Object.entries(local.services).filter(([, service]) => service.profiles?.includes('observability'));
    expect(observability.map(([name]) => name).sort()).toEqual(['alertmanager', 'grafana', 'prometheus']);
    expect(local.services.alertmanager!.volumes).toContain('./infra/alertmanager:/etc/alertmanager:ro');
    expect(local.services.prometheus!.command).toEqual(['--config.file=/etc/prometheus/prometheus.compose.yml']);
    expect(local.services.prometheus!.volumes).toEqual(['./infra/prometheus:/etc/prometheus:ro']);
    expect(local.services.grafana!.volumes).toEqual([
      './infra/grafana/provisioning:/etc/grafana/provisioning:ro',
      './infra/grafana/dashboards:/var/lib/grafana/dashboards:ro',
    ]);
    for (const [, service] of Object.entries(local.services).filter(
      ([name]) => !['alertmanager', 'grafana', 'prometheus'].includes(name),
    )) {
      expect(service.profiles).toBeUndefined();
    }
  });

  it('needs nothing from the environment: no variable is substituted in the file', () => {
    expect(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')).not.toMatch(/\$\{/);
  });

  it('connects each app to Redis as its own user, made by redis-acl before any app starts', () => {
    for (const app of APPS.filter((name) => name !== 'sandbox-provider')) {
      const setting = `${app.toUpperCase().replaceAll('-', '_')}_REDIS_URL`;
      expect(local.services[app]!.environment?.REDIS_URL_FILE).toBe(`/run/gateway-local/${setting}`);
      expect(local.services['redis-acl']!.environment?.[`${setting}_FILE`]).toBe(`/run/gateway-local/${setting}`);
      expect(local.services[app]!.depends_on).toMatchObject({ 'redis-acl': { condition: 'service_completed_successfully' } });
    }
    expect(local.services['redis-acl']!.command).toEqual(['redis', 'acl', '--apply']);
  });

  it("reads every key from the init's volume, never from the file itself", () => {
    for (const service of Object.values(local.services)) {
      for (const [name, value] of Object.entries(service.environment ?? {})) {
        expect([name, /(KEY|KEYS|MNEMONIC|SECRET|XPUB)$/.test(name) && !name.endsWith('_FILE')]).toEqual([name, false]);
        if (name.endsWith('_FILE')) expect(value).toMatch(/^\/run\/gateway-local\/[A-Z_]+$/);
      }
    }
  });
});

describe('docker-compose.production.yml', () => {
  const secretNames = Object.keys(production.secrets ?? {});
  const check = production.services['secrets-check']!;

  it('takes every secret from a file and checks all of them before anything starts', () => {
    expect(secretNames.length).toBeGreaterThan(0);
    for (const name of secretNames) expect(production.secrets![name]!.file).toBe(`\${GATEWAY_SECRETS_DIR:-./secrets}/${name}`);
    expect([...(check.command ?? [])].sort()).toEqual([...secretNames].sort());
    expect([...(check.secrets ?? [])].sort()).toEqual([...secretNames].sort());
    for (const [name, service] of Object.entries(production.services)) {
      if (name !== 'secrets-check')
        expect(service.depends_on).toMatchObject({ 'secrets-check': { condition: 'service_completed_successfully' } });
    }
  });

  it('mounts into each app only the secrets its settings name; only the settlement worker holds the seed and the relayer key', () => {
    for (const app of APPS.filter((name) => name !== 'sandbox-provider')) {
      const service = production.services[app]!;
      const named = Object.entries(service.environment ?? {})
        .filter(([name]) => name.endsWith('_FILE'))
        .map(([, path]) => String(path).replace('/run/secrets/', ''));
      expect([app, [...(service.secrets ?? [])].sort()]).toEqual([app, named.sort()]);
    }
    const holders = (secret: string) =>
      Object.entries(production.services)
        .filter(([name, service]) => name !== 'secrets-check' && service.secrets?.includes(secret))
        .map(([name]) => name);
    expect(holders('settlement_mnemonic')).toEqual(['settlement-worker']);
    // Each app its own Redis user (redis-acl makes them, with the admin's URL only it holds).
    expect(holders('redis_admin_url')).toEqual(['redis-acl']);
    for (const app of APPS.filter((name) => name !== 'sandbox-provider')) {
      const secret = `${app.replaceAll('-', '_')}_redis_url`;
      expect(production.services[app]!.environment?.REDIS_URL_FILE).toBe(`/run/secrets/${secret}`);
      expect(holders(secret)).toEqual(['redis-acl', app]);
    }
    expect(holders('relayer_private_key')).toEqual(['settlement-worker']);
    expect(production.services['sandbox-provider']).toBeUndefined();
  });

  it('refuses to start while a secret file is missing or empty, naming each, and passes once all are there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'secrets-'));
    try {
      const [node, flag, script] = check.entrypoint!;
      expect([node, flag]).toEqual(['node', '-e']);
      const runCheck = () =>
        spawnSync(process.execPath, ['-e', script!.replace("'/run/secrets/'", JSON.stringify(`${dir}/`)), ...secretNames], {
          encoding: 'utf8',
        });
      for (const name of secretNames.slice(1)) writeFileSync(join(dir, name), 'value\n');
      writeFileSync(join(dir, secretNames[1]!), '');
      const refused = runCheck();
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(`refusing to start: missing or empty secret files: ${secretNames[0]}, ${secretNames[1]}`);
      for (const name of secretNames) writeFileSync(join(dir, name), 'value\n');
      expect(runCheck().status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
