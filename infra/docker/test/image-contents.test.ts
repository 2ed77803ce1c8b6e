// What each image holds, proven without a Docker engine: the build context as .dockerignore leaves
// it, the Dockerfile's own RUN commands (install, build, assemble-app.sh) run in a temporary folder,
// then every app started from its folder with `node dist/main.js` and the environment
// docker-compose.yml gives it (hosts pointed at this machine), its keys made by the local stack's
// init from its own folder, as `docker compose up` does.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { Client } from 'pg';
import { parse as parseYaml } from 'yaml';
import { findFreePort, startAnvil, startRedisServer, TEST_DATABASE_URL, type RunningAnvil, type RunningRedis } from '@gateway/testkit';
import { copyBuildContext, isExcluded, parseDockerignore } from './support/docker-context';
import { argsOf, execForm, parseDockerfile, stage } from './support/dockerfile';

const ROOT = join(__dirname, '..', '..', '..');
// apps/cli is the operator CLI: an image of its own (the Dockerfile's target cli), run per command, not a service.
const APPS = readdirSync(join(ROOT, 'apps')).filter((name) => name !== 'cli' && existsSync(join(ROOT, 'apps', name, 'package.json')));
const dockerfile = parseDockerfile(readFileSync(join(ROOT, 'infra', 'docker', 'Dockerfile'), 'utf8'));
const compose = parseYaml(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as ComposeFile;
const DEV_ONLY =
  /^(jest|jest-[a-z-]+|@jest\+|typescript|tsx|ts-jest|@swc\+|@stryker-mutator\+|playwright|playwright-core|turbo|turbo-[a-z0-9-]+|@biomejs\+|solc|node-html-parser)@/;

interface ComposeService {
  build?: { target?: string; args?: Record<string, string> };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test: string[] };
}
interface ComposeFile {
  services: Record<string, ComposeService>;
}

// Made by the images' beforeAll, so a run that filters those tests out leaves nothing behind.
let work = '';
const folders = new Map<string, string>();
const sizes = new Map<string, string>();
const id = randomBytes(4).toString('hex');
const database = `gateway_images_${id}`;
const keysDir = () => join(work, 'keys');
let chain: RunningAnvil | undefined;
// A private redis-server: compose's redis-acl makes its apps' users on it (never on the shared Redis).
let redis: RunningRedis | undefined;
const running: ChildProcess[] = [];

/** Runs a Dockerfile RUN command (shell form) in `cwd`, failing with its output. */
function run(command: string, cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const result = spawnSync('sh', ['-c', command], { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0)
    throw new Error(`${command} exited ${result.status}:\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`);
  return result.stdout;
}

/** The RUN commands of `name`, the folder it writes (/out) moved to `out`. */
function stageCommands(name: string, out?: string): string[] {
  return argsOf(stage(dockerfile, name), 'RUN').map((command) => (out === undefined ? command : command.replace(/ \/out$/, ` ${out}`)));
}

function walk(dir: string, visit: (path: string, isDirectory: boolean) => void): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    visit(path, entry.isDirectory());
    if (entry.isDirectory()) walk(path, visit);
  }
}

/** Our own code in a folder: the folder less its node_modules, plus each @gateway package it installed. */
function ownCodeRoots(folder: string): string[] {
  const scoped = join(folder, 'node_modules', '@gateway');
  return [folder, ...(existsSync(scoped) ? readdirSync(scoped).map((name) => join(scoped, name)) : [])];
}

function ownFiles(folder: string): string[] {
  const files: string[] = [];
  for (const root of ownCodeRoots(folder)) {
    const visit = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.name === 'node_modules') continue;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) visit(path);
        else files.push(path);
      }
    };
    visit(root);
  }
  return files;
}

/** The defaults of PORT and METRICS_PORT in the app's settings schema, read from its built config by node. */
function portDefaults(folder: string): { port?: number; metricsPort: number } {
  const read = `const schema = Object.values(require('./dist/config.js')).find((value) => value?.properties?.METRICS_PORT);
    console.log(JSON.stringify({ port: schema.properties.PORT?.default, metricsPort: schema.properties.METRICS_PORT.default }))`;
  const result = spawnSync(process.execPath, ['-e', read], { cwd: folder, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${folder}: cannot read the settings defaults: ${result.stderr}`);
  return JSON.parse(result.stdout) as { port?: number; metricsPort: number };
}

interface Ports {
  port: number;
  metricsPort: number;
}
/** Every process's ports, given before any starts: they name each other in their settings. */
const started = new Map<string, Ports>();

/** The service's compose environment, its hosts and ports pointed at this machine's test services. */
function localEnv(service: string, ports: Ports): Record<string, string> {
  const publishedBy = new Map<string, string>();
  for (const [name, definition] of Object.entries(compose.services)) {
    for (const mapping of definition.ports ?? []) publishedBy.set(mapping.split(':').at(-1)!, name);
  }
  const testUrl = (name: string | undefined) => {
    const ports = name === undefined ? undefined : started.get(name);
    if (!ports) throw new Error(`${service}: no test process for ${name}`);
    return `http://127.0.0.1:${ports.port}`;
  };
  const rewrite = (value: string): string => {
    if (value.startsWith('/run/gateway-local/')) return `${keysDir()}/${value.slice('/run/gateway-local/'.length)}`;
    if (value.startsWith('postgres://')) return value.replace('@postgres:5432/gateway', `@127.0.0.1:5432/${database}`);
    if (value === 'redis://redis:6379') return redis!.url;
    if (value === 'http://chain:8545') return chain!.rpcUrl;
    const internal = /^http:\/\/([a-z-]+):\d+(.*)$/.exec(value);
    if (internal) return `${testUrl(internal[1])}${internal[2]}`;
    const published = /^http:\/\/127\.0\.0\.1:(\d+)(.*)$/.exec(value);
    if (published) return `${testUrl(publishedBy.get(published[1]!))}${published[2]}`;
    return value;
  };
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(compose.services[service]!.environment ?? {})) env[name] = rewrite(String(value));
  return {
    ...env,
    PORT: String(ports.port),
    METRICS_PORT: String(ports.metricsPort),
    HOST: '127.0.0.1',
    METRICS_HOST: '127.0.0.1',
  };
}

/** Starts `command` in `folder` with only `env` (and PATH), as a container would. */
function startProcess(folder: string, command: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, command.slice(1), {
    cwd: folder,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  child.on('exit', (code) => {
    if (code !== null && code !== 0) console.error(`${folder} ${command.join(' ')} exited ${code}: ${stderr}`);
  });
  running.push(child);
  return child;
}

async function answers(url: string, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = 0;
  while (Date.now() < deadline) {
    try {
      last = (await fetch(url)).status;
      if (last === 200) return last;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return last;
}

/** Runs a HEALTHCHECK-style `node -e` command in `folder` with `env`; resolves with its exit code. */
function runCheck(folder: string, command: string[], env: Record<string, string>): Promise<number | null> {
  const child = spawn(process.execPath, command.slice(1), { cwd: folder, env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('the Dockerfile', () => {
  it('builds on the pinned Node of .node-version (22 slim), which the root engines accept, with the pinned pnpm', () => {
    const nodeImage = dockerfile.globalArgs.NODE_IMAGE!;
    expect(nodeImage).toMatch(/^node:22\.\d+\.\d+-bookworm-slim$/);
    const stageNames = dockerfile.stages.map((candidate) => candidate.name);
    for (const built of dockerfile.stages) expect(/^\$\{NODE_IMAGE\}$/.test(built.from) || stageNames.includes(built.from)).toBe(true);
    const rootPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
      packageManager: string;
    };
    // One Node for development, tests and images: what `npm test` fetches when the machine's is older.
    const imageVersion = /^node:(\d+\.\d+\.\d+)/.exec(nodeImage)![1]!;
    expect(readFileSync(join(ROOT, '.node-version'), 'utf8').trim()).toBe(imageVersion);
    const [oldest = '', image = ''] = [rootPackage.engines.node.replace(/^>=/, ''), imageVersion].map((version) =>
      version
        .split('.')
        .map((part) => part.padStart(4, '0'))
        .join('.'),
    );
    expect(rootPackage.engines.node).toMatch(/^>=\d+\.\d+\.\d+$/);
    expect(image >= oldest).toBe(true);
    const pnpmVersion = rootPackage.packageManager.replace(/^pnpm@/, '');
    expect(stageCommands('toolchain')).toContain(`npm install -g pnpm@${pnpmVersion} && npm cache clean --force`);
  });

  it('installs from the lockfile before the sources come in, so the dependencies layer stays cached', () => {
    const deps = stage(dockerfile, 'deps').instructions.map((instruction) => `${instruction.keyword} ${instruction.args}`);
    expect(deps).toEqual([
      'COPY pnpm-lock.yaml pnpm-workspace.yaml ./',
      'RUN pnpm fetch',
      'COPY . .',
      expect.stringMatching(/^RUN pnpm install --offline --frozen-lockfile/),
    ]);
  });

  it('ends with the app image: only the assembled folder, user node, production, a health check, node dist/main.js', () => {
    const final = dockerfile.stages.at(-1)!;
    expect(final.name).toBe('app');
    expect(argsOf(final, 'RUN')).toEqual([]);
    expect(argsOf(final, 'COPY')).toEqual(['--from=app-files /out /app']);
    expect(argsOf(final, 'USER')).toEqual(['node']);
    expect(argsOf(final, 'WORKDIR')).toEqual(['/app']);
    expect(argsOf(final, 'ENV').join(' ')).toContain('NODE_ENV=production');
    expect(argsOf(final, 'HEALTHCHECK')).toHaveLength(1);
    expect(execForm(argsOf(final, 'CMD')[0]!)).toEqual(['node', 'dist/main.js']);
  });

  it('runs the local chain and the local tools as node too, the chain with a health check', () => {
    for (const name of ['local-chain', 'local-tools']) expect(argsOf(stage(dockerfile, name), 'USER')).toEqual(['node']);
    expect(argsOf(stage(dockerfile, 'local-chain'), 'HEALTHCHECK')).toHaveLength(1);
  });
});

describe('the build context (.dockerignore)', () => {
  const rules = parseDockerignore(readFileSync(join(ROOT, '.dockerignore'), 'utf8'));

  it('leaves out git, the local keys, installed and built files, reports, bench results, logs and production secrets', () => {
    for (const path of [
      '.git/HEAD',
      '.local/keys.json',
      'node_modules/x/index.js',
      'apps/wallet-control/node_modules/fastify',
      'apps/wallet-control/dist/main.js',
      'packages/db/dist/index.js',
      'reports/mutation/index.html',
      'bench/results/http.json',
      'apps/wallet-control/debug.log',
      'secrets/redis_url',
      'production.env',
      'scripts/local-stack.ts',
      'apps/wallet-control/test/app.test.ts',
    ]) {
      expect([path, isExcluded(rules, path)]).toEqual([path, true]);
    }
    for (const path of [
      'package.json',
      'pnpm-lock.yaml',
      'apps/wallet-control/src/main.ts',
      'packages/db/migrations/001_init.sql',
      'infra/docker/assemble-app.sh',
    ]) {
      expect([path, isExcluded(rules, path)]).toEqual([path, false]);
    }
  });
});

describe('the images, built as the Dockerfile builds them', () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'images-'));
    const context = join(work, 'context');
    copyBuildContext(ROOT, context);
    // The toolchain stage's pnpm, installed into the work folder rather than globally (CI keeps pnpm off PATH).
    const toolchain = join(work, 'toolchain');
    const { packageManager } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { packageManager: string };
    run(`npm install -g --prefix ${toolchain} ${packageManager}`, work);
    // A pnpm cache and store of its own, empty, as in a fresh build container: what this machine's
    // pnpm has cached can neither help nor hide anything (issue 21: a warm metadata cache did).
    const env = {
      ...process.env,
      CI: 'true',
      PATH: `${join(toolchain, 'bin')}${delimiter}${process.env.PATH}`,
      XDG_CACHE_HOME: join(work, 'pnpm-cache'),
      XDG_DATA_HOME: join(work, 'pnpm-data'),
    };
    const store = run('pnpm store path', context, env).trim();
    if (!store.startsWith(work)) throw new Error(`pnpm would use the store at ${store}, not one of the test's own`);
    for (const command of [...stageCommands('deps'), ...stageCommands('build')]) run(command, context, env);
    // The assembly must need nothing but the lockfile and the store the install filled: it gets an
    // empty cache, so no registry metadata that `pnpm fetch` happened to leave behind.
    const assemblyEnv = { ...env, XDG_CACHE_HOME: join(work, 'assembly-cache') };
    for (const app of APPS) {
      const out = join(work, 'images', app);
      for (const command of stageCommands('app-files', out)) run(command, context, { ...assemblyEnv, APP: app });
      folders.set(app, out);
    }
    const tools = join(work, 'images', 'local-tools');
    for (const command of stageCommands('local-tools-files', tools)) run(command, context, assemblyEnv);
    folders.set('local-tools', tools);
    const cli = join(work, 'images', 'cli');
    for (const command of stageCommands('cli-files', cli)) run(command, context, assemblyEnv);
    folders.set('cli', cli);
    for (const [name, folder] of folders) sizes.set(name, run(`du -sh ${folder}`, work).split('\t')[0]!);
    console.log(`what each image holds (du -sh):\n${[...sizes].map(([name, size]) => `  ${name.padEnd(18)} ${size}`).join('\n')}`);
  }, 900_000);

  afterAll(async () => {
    await Promise.all(
      running.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    await chain?.stop();
    await redis?.stop();
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.end();
    if (work !== '') rmSync(work, { recursive: true, force: true });
  }, 60_000);

  describe('each app image', () => {
    it.each(APPS)('%s: the built app and its production dependencies, nothing else', (app) => {
      const folder = folders.get(app)!;
      const { files } = JSON.parse(readFileSync(join(ROOT, 'apps', app, 'package.json'), 'utf8')) as { files: string[] };
      expect(files).toContain('dist');
      const published = files.filter((entry) => !entry.startsWith('!'));
      expect(readdirSync(folder).sort()).toEqual([...published, 'node_modules', 'package.json'].sort());
      const names: string[] = [];
      walk(folder, (path) => names.push(relative(folder, path)));
      expect(names.filter((name) => /(^|\/)(\.git|\.local|\.env[^/]*|keys\.json|[^/]*\.pem|secrets)$/.test(name))).toEqual([]);
      expect(readdirSync(join(folder, 'node_modules', '.pnpm')).filter((entry) => DEV_ONLY.test(entry))).toEqual([]);
      const own = ownFiles(folder);
      expect(own.filter((file) => (file.endsWith('.ts') && !file.endsWith('.d.ts')) || /\.test\.js$/.test(file))).toEqual([]);
      expect(own.filter((file) => /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(readFileSync(file, 'utf8')))).toEqual([]);
      const localKeys = join(ROOT, '.local', 'keys.json');
      if (existsSync(localKeys)) {
        const { mnemonic } = JSON.parse(readFileSync(localKeys, 'utf8')) as { mnemonic: string };
        expect(own.filter((file) => readFileSync(file, 'utf8').includes(mnemonic))).toEqual([]);
      }
    });
  });

  describe('started as docker compose starts them', () => {
    beforeAll(async () => {
      chain = await startAnvil({ chainId: 31337, blockTime: 1, slotsInAnEpoch: 1 });
      redis = await startRedisServer();
      for (const name of [...APPS, 'demo-merchant']) started.set(name, { port: await findFreePort(), metricsPort: await findFreePort() });
    }, 60_000);

    it('the init makes the keys, deploys the test USDC and prepares the database, and keeps them on its next start', () => {
      const tools = folders.get('local-tools')!;
      const init = compose.services.init!;
      const env = {
        PATH: process.env.PATH!,
        ...Object.fromEntries(Object.entries(init.environment ?? {}).map(([name, value]) => [name, String(value)])),
        PG_ADMIN_URL: TEST_DATABASE_URL,
        LOCAL_DATABASE: database,
        CHAIN_RPC_URL: chain!.rpcUrl,
        LOCAL_KEYS_DIR: keysDir(),
        LOCAL_REDIS_URL: redis!.url,
      };
      const first = run('node dist/local-init.js', tools, env);
      expect(first).toContain('generated throw-away local keys');
      expect(first).toContain('test USDC deployed');
      const keys = readFileSync(join(keysDir(), 'keys.json'), 'utf8');
      const second = run('node dist/local-init.js', tools, env);
      expect(second).toContain('kept the local keys');
      expect(second).toContain('chain kept');
      expect(readFileSync(join(keysDir(), 'keys.json'), 'utf8')).toBe(keys);
    }, 120_000);

    it("redis-acl (the CLI image) makes each app's Redis user from the init's files, as compose runs it", () => {
      const cli = folders.get('cli')!;
      const service = compose.services['redis-acl']!;
      const entrypoint = execForm(argsOf(stage(dockerfile, 'cli'), 'ENTRYPOINT')[0]!);
      const made = spawnSync(process.execPath, [...entrypoint.slice(1), ...service.command!], {
        cwd: cli,
        env: { PATH: process.env.PATH, ...localEnv('redis-acl', { port: 0, metricsPort: 0 }) },
        encoding: 'utf8',
      });
      expect([made.status, made.stderr]).toEqual([0, '']);
      for (const app of APPS.filter((name) => name !== 'sandbox-provider')) expect(made.stdout).toContain(`gw-${app}`);
    });

    it("the CLI image runs gateway (its ENTRYPOINT): help by default, and the commands against the init's database", () => {
      const cli = folders.get('cli')!;
      const image = stage(dockerfile, 'cli');
      expect(argsOf(image, 'USER')).toEqual(['node']);
      expect(argsOf(image, 'COPY')).toEqual(['--from=cli-files /out /app']);
      const entrypoint = execForm(argsOf(image, 'ENTRYPOINT')[0]!);
      expect(readdirSync(cli).sort()).toEqual(['dist', 'node_modules', 'package.json']);
      expect(readdirSync(join(cli, 'node_modules', '.pnpm')).filter((entry) => DEV_ONLY.test(entry))).toEqual([]);
      const gateway = (args: string[]) =>
        spawnSync(process.execPath, [...entrypoint.slice(1), ...args], {
          cwd: cli,
          env: { PATH: process.env.PATH, NODE_ENV: 'production', DATABASE_URL: TEST_DATABASE_URL.replace(/\/[^/]*$/, `/${database}`) },
          encoding: 'utf8',
        });
      const help = gateway(execForm(argsOf(image, 'CMD')[0]!));
      expect([help.status, help.stdout]).toEqual([0, expect.stringContaining('  deposits replan ')]);
      // The init migrated this database (the test above): the CLI finds it up to date.
      expect(gateway(['migrate'])).toMatchObject({ status: 0, stdout: 'database schema is up to date\n' });
      expect(gateway(['story', '0x000000000000000000000000000000000000dEaD'])).toMatchObject({ status: 1 });
    });

    it.each(APPS)(
      '%s answers /healthz (the image HEALTHCHECK) and /readyz (compose) from node dist/main.js',
      async (app) => {
        const folder = folders.get(app)!;
        const service = compose.services[app]!;
        expect(service.build?.args?.APP).toBe(app);
        const ports = started.get(app)!;
        startProcess(folder, ['node', ...execForm(argsOf(stage(dockerfile, 'app'), 'CMD')[0]!).slice(1)], localEnv(app, ports));

        const healthcheck = execForm(argsOf(stage(dockerfile, 'app'), 'HEALTHCHECK')[0]!);
        expect(await answers(`http://127.0.0.1:${ports.metricsPort}/healthz`)).toBe(200);
        expect(await runCheck(folder, healthcheck, { APP: app, METRICS_PORT: String(ports.metricsPort) })).toBe(0);

        // The image's and compose's checks aim at the app's own default ports.
        const defaults = portDefaults(folder);
        expect(healthcheck.at(-1)).toContain(`'${app}': ${defaults.metricsPort}`);
        const composePort = Number(/127\.0\.0\.1:(\d+)\//.exec(service.healthcheck!.test.at(-1)!)![1]);
        expect([defaults.port, defaults.metricsPort]).toContain(composePort);
        for (const mapping of service.ports ?? []) expect(Number(mapping.split(':').at(-1))).toBe(defaults.port);
        const readyPort = composePort === defaults.port ? ports.port : ports.metricsPort;
        expect(await answers(`http://127.0.0.1:${readyPort}/readyz`)).toBe(200);
      },
      120_000,
    );

    it('the demo merchant answers its health check and the demo order gets payment links from the running apps', async () => {
      const tools = folders.get('local-tools')!;
      const merchantPorts = started.get('demo-merchant')!;
      startProcess(tools, compose.services['demo-merchant']!.command!, localEnv('demo-merchant', merchantPorts));
      expect(await answers(`http://127.0.0.1:${merchantPorts.port}/healthz`)).toBe(200);

      const order = run(compose.services['demo-order']!.command!.join(' '), tools, {
        PATH: process.env.PATH,
        ...localEnv('demo-order', { port: 0, metricsPort: 0 }),
      });
      expect(order).toContain(`http://127.0.0.1:${started.get('payment-redirect')!.port}/process-payment.php?address=`);
    }, 60_000);
  });
});
