import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IDeployment } from 'kubernetes-models/apps/v1';
import type { IJob } from 'kubernetes-models/batch/v1';
import type { IContainer, IPodSpec, ISecret } from 'kubernetes-models/v1';
import { parse } from 'yaml';
import { type Manifest, parseManifests, renderKustomization } from '../src/kustomize';

// What the deployment files name, against what the code builds, makes and reads: the images the
// Dockerfile builds, the login users `gateway keys db-logins` creates, and the secret files the apps
// read through <SETTING>_FILE (packages/config's loadConfig: the whole file, trimmed, is the value)
// and `gateway keys … --out-dir` writes. Each is taken from the code, never copied here.
const K8S = join(__dirname, '..');
const REPO = join(K8S, '..', '..');
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');

interface Settings {
  properties: Record<string, unknown>;
}
type SettingsSchemaOf = (app: string) => Settings;
const loadConfig = (
  require(join(REPO, 'packages/config/src/load-config.ts')) as { loadConfig: (schema: unknown, env: NodeJS.ProcessEnv) => unknown }
).loadConfig;
const { Type } = require(require.resolve('@sinclair/typebox', { paths: [join(REPO, 'packages/config')] })) as {
  Type: { Object: (properties: Record<string, unknown>) => unknown };
};
const { appLoginUser } = require(join(REPO, 'packages/db/src/app-login-users.ts')) as {
  appLoginUser: (app: string, prefix?: string) => string;
};
const { DATABASE_APPS: databaseApps } = require(join(REPO, 'packages/db/src/app-roles.ts')) as { DATABASE_APPS: readonly string[] };
const { keysCommand } = require(join(REPO, 'apps/cli/src/commands/keys.ts')) as {
  keysCommand: (
    args: string[],
    io: { out(text: string): void; err(text: string): void; stdout: NodeJS.WritableStream; env: NodeJS.ProcessEnv },
  ) => Promise<number>;
};

const SETTINGS_EXPORT: Record<string, string> = {
  'wallet-control': 'walletControlSettings',
  'payment-redirect': 'paymentRedirectSettings',
  'chain-watcher': 'chainWatcherSettings',
  'settlement-worker': 'settlementSettings',
  'callback-worker': 'callbackWorkerSettings',
};
const settingsOf: SettingsSchemaOf = (app) =>
  (require(join(REPO, 'apps', app, 'src', 'config.ts')) as Record<string, Settings>)[SETTINGS_EXPORT[app] as string] as Settings;

const production = renderKustomization(join(K8S, 'overlays/production'));
const migration = renderKustomization(join(K8S, 'overlays/production-migration'));
const secretsExampleText = readFileSync(join(K8S, 'secrets.example.yaml'), 'utf8');
const secretsExample = parseManifests(secretsExampleText, 'secrets.example.yaml') as unknown as (ISecret & Manifest)[];
const version = (JSON.parse(read('package.json')) as { version: string }).version;

interface ComposeService {
  image?: string;
  build?: { target?: string; args?: Record<string, string> };
  environment?: Record<string, string>;
  secrets?: string[];
}
const composeProduction = parse(read('docker-compose.production.yml')) as {
  services: Record<string, ComposeService>;
  secrets: Record<string, { file: string }>;
};

/** The Dockerfile's build targets, and the apps its `app` target builds (`--build-arg APP=<folder under apps/>`). */
const dockerfile = read('infra/docker/Dockerfile');
const targets = new Set([...dockerfile.matchAll(/^FROM \S+ AS (\S+)$/gm)].map(([, name]) => name as string));
const buildableApps = readdirSync(join(REPO, 'apps')).filter((app) => {
  try {
    return /\bdist\/main\.js\b/.test(
      (JSON.parse(read(`apps/${app}/package.json`)) as { scripts?: { start?: string } }).scripts?.start ?? '',
    );
  } catch {
    return false;
  }
});

/** The image a build makes, as the Deployment docs name it: `gateway/<app>` for the app target, `gateway/cli` for the CLI's. */
function imageBuilt(build: { target?: string; args?: Record<string, string> }): string {
  const target = build.target ?? 'app';
  if (!targets.has(target)) throw new Error(`the Dockerfile has no target ${target}`);
  if (target === 'cli') return 'gateway/cli';
  if (target !== 'app') throw new Error(`target ${target} is not an app image`);
  const app = build.args?.APP ?? '';
  if (!buildableApps.includes(app)) throw new Error(`APP=${app} is no app under apps/ with a dist/main.js start`);
  return `gateway/${app}`;
}

const podSpecOf = (workload: Manifest) => (workload as unknown as IDeployment | IJob).spec?.template.spec as IPodSpec;
// The gateway's own: the Alertmanager runs the upstream image (manifests.test.ts checks it).
const workloads = [...production, ...migration].filter(
  (manifest) => (manifest.kind === 'Deployment' || manifest.kind === 'Job') && manifest.metadata.name !== 'gateway-alertmanager',
);

describe('image names', () => {
  it("are what the Dockerfile builds: each app's Deployment its app target, the Jobs the CLI's target, all of the root version", () => {
    expect([...targets]).toEqual(expect.arrayContaining(['app', 'cli']));
    expect(workloads.length).toBe(7);
    for (const workload of workloads) {
      for (const container of podSpecOf(workload).containers as IContainer[]) {
        const [name, tag] = (container.image as string).split(':');
        const expected =
          workload.kind === 'Job' ? imageBuilt({ target: 'cli' }) : imageBuilt({ args: { APP: workload.metadata.name as string } });
        expect({ workload: workload.metadata.name, image: name, tag }).toEqual({
          workload: workload.metadata.name,
          image: expected,
          tag: version,
        });
      }
    }
  });

  it('are, in docker-compose.production.yml, the image each service builds, of the root version', () => {
    const services = Object.entries(composeProduction.services);
    expect(services.length).toBeGreaterThan(5);
    for (const [service, { image, build }] of services) {
      expect({ service, image }).toEqual({ service, image: `${imageBuilt(build ?? {})}:${version}` });
    }
  });

  it('name images the Dockerfile cannot build as such (the check above can fail)', () => {
    expect(() => imageBuilt({ args: { APP: 'ledger-worker' } })).toThrow(/no app under apps/);
    expect(() => imageBuilt({ target: 'migrations' })).toThrow(/no target/);
  });
});

describe('database login users', () => {
  // The migration Job's DATABASE_ROLE_PREFIX: the roles, and so the login users, are named after it.
  const migrate = migration.find((manifest) => manifest.kind === 'Job' && manifest.metadata.name === 'gateway-migrate') as Manifest;
  const prefix = (podSpecOf(migrate).containers[0] as IContainer).env?.find((variable) => variable.name === 'DATABASE_ROLE_PREFIX')
    ?.value as string;
  const logins = new Set(databaseApps.map((app) => appLoginUser(app, prefix)));

  it("in secrets.example.yaml are the users `gateway keys db-logins` creates, one per app's Secret", () => {
    expect(databaseApps.length).toBe(5);
    for (const app of databaseApps) {
      const secret = secretsExample.find((manifest) => manifest.metadata?.name === `gateway-db-${app}`);
      expect({ app, user: new URL(secret?.stringData?.url as string).username }).toEqual({ app, user: appLoginUser(app, prefix) });
    }
  });

  it("in the operations and deployment pages and the manifests' comments are those users", () => {
    const texts = [
      ...readdirSync(join(REPO, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
      'README.md',
      'infra/k8s/base/migration/migration-job.yaml',
      'infra/k8s/secrets.example.yaml',
    ];
    const named = texts.flatMap((path) =>
      [...read(path).matchAll(/(?:CREATE|ALTER) ROLE "?([a-z_][a-z0-9_]*)"? (?:LOGIN|NOINHERIT)/g)].map(([, user]) => ({ path, user })),
    );
    expect(named.filter(({ path }) => path === 'docs/operations.md').length).toBeGreaterThanOrEqual(2);
    expect(named.filter(({ user }) => !logins.has(user as string))).toEqual([]);
  });
});

describe('secret files', () => {
  // What `gateway keys … --out-dir` writes, run for real: one file per setting, named by the CLI.
  const written = (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-keys-'));
    const io = { out: () => undefined, err: () => undefined, stdout: process.stdout, env: {} };
    for (const kind of ['seed', 'sealing', 'callback', 'admin']) {
      const sub = join(dir, kind);
      expect(await keysCommand([kind, '--out-dir', sub], io)).toBe(0);
    }
    return ['seed', 'sealing', 'callback', 'admin'].flatMap((kind) =>
      readdirSync(join(dir, kind)).map((file) => ({ file, path: join(dir, kind, file) })),
    );
  })();

  // Which app reads each setting (as a *_FILE in docker-compose.production.yml).
  const readers = Object.entries(composeProduction.services).flatMap(([service, { environment = {} }]) =>
    Object.entries(environment)
      .filter(([name]) => name.endsWith('_FILE'))
      .map(([name, path]) => ({ service, setting: name.slice(0, -'_FILE'.length), secret: path.replace(/^\/run\/secrets\//, '') })),
  );

  it('written by `gateway keys --out-dir` are bare values each app reads through <SETTING>_FILE, under the names compose mounts', async () => {
    const files = await written;
    expect(files.map(({ file }) => file).sort()).toEqual(
      ['address_in_keys', 'admin_token', 'callback_public_keys', 'callback_signing_keys', 'hd_xpub', 'settlement_mnemonic'].sort(),
    );
    let checked = 0;
    for (const { file, path } of files) {
      expect(readFileSync(path, 'utf8')).not.toMatch(/^[A-Z][A-Z0-9_]*=/);
      for (const { service, setting, secret } of readers.filter((reader) => reader.secret === file)) {
        // Mounted under the CLI's name, as the setting the CLI wrote it for, from the file compose names.
        expect({ service, setting }).toEqual({ service, setting: file.toUpperCase() });
        expect(composeProduction.secrets[secret]?.file).toBe(`\${GATEWAY_SECRETS_DIR:-./secrets}/${file}`);
        // Read as the app reads it: its own schema's property, from the file.
        const property = settingsOf(service).properties[setting];
        expect(property).toBeDefined();
        expect(() => loadConfig(Type.Object({ [setting]: property }), { [`${setting}_FILE`]: path })).not.toThrow();
        checked += 1;
      }
    }
    // The seed's two, the sealing keys (two apps), the signing keys, the public keys.
    expect(checked).toBeGreaterThanOrEqual(6);
  });

  it("in secrets.example.yaml hold bare values (no NAME=), and its `--from-file` lines name the CLI's files and the Secrets' keys", async () => {
    const files = new Set((await written).map(({ file }) => file));
    for (const secret of secretsExample) {
      for (const [key, value] of Object.entries(secret.stringData ?? {})) {
        expect({ secret: secret.metadata?.name, key, value }).not.toEqual(
          expect.objectContaining({ value: expect.stringMatching(/^[A-Z][A-Z0-9_]*=/) }),
        );
      }
    }
    const fromFile = [...secretsExampleText.matchAll(/create secret generic (\S+) --from-file=([a-z-]+)=\.\/secrets\/(\S+)/g)];
    expect(fromFile.length).toBeGreaterThanOrEqual(2);
    for (const [, name, key, file] of fromFile) {
      expect(files).toContain(file);
      const secret = secretsExample.find((manifest) => manifest.metadata?.name === name);
      expect({ name, keys: Object.keys(secret?.stringData ?? {}) }).toEqual({ name, keys: expect.arrayContaining([key]) });
      // The Secret's key is mounted as a file some app reads as the setting the CLI's file is named after.
      const mounted = workloads.some((workload) => {
        const spec = podSpecOf(workload);
        const paths = (spec.volumes ?? []).flatMap((volume) =>
          (volume.projected?.sources ?? [])
            .flatMap((source) => (source.secret?.name === name ? (source.secret?.items ?? []) : []))
            .concat(volume.secret?.secretName === name ? (volume.secret?.items ?? []) : [])
            .map((item) => item.path),
        );
        return (spec.containers as IContainer[]).some((container) =>
          (container.env ?? []).some(
            (variable) =>
              variable.name === `${(file as string).toUpperCase()}_FILE` && paths.some((path) => variable.value?.endsWith(`/${path}`)),
          ),
        );
      });
      expect({ name, key, file, mounted }).toEqual({ name, key, file, mounted: true });
    }
  });
});
