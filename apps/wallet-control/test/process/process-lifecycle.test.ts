import { join } from 'node:path';
import { testKeyEnv } from '@gateway/app-testkit';
import { ANY_LOOPBACK_PORTS, killStartedApps, startAppProcess } from '@gateway/testkit';
import { walletControlFixture } from '../support/wallet-control-fixture';

const MAIN = join(__dirname, '..', '..', 'src', 'main.ts');

/** A boot the process refuses: it exits before it listens. */
function refusedBoot(env: Record<string, string>) {
  const run = startAppProcess(MAIN, env);
  run.port.catch(() => undefined);
  return run;
}

// The process gets the settings the in-process apps get, so its Redis keys land under the fixture's prefix too.
const fixture = walletControlFixture('lifecycle');

describe('wallet-control process', () => {
  afterEach(killStartedApps);

  it('refuses to boot on a missing or bad setting, naming it and not its value', async () => {
    const run = refusedBoot({ DATABASE_URL: fixture.db.connectionString, ADDRESS_IN_KEYS: 'k1:tooshort-secret-value', PORT: 'eighty' });
    expect(await run.exited).toBe(1);
    const { stderr } = run.output();
    expect(stderr).toMatch(/HD_XPUB/);
    expect(stderr).toMatch(/PORT/);
    expect(stderr).toMatch(/ADDRESS_IN_KEYS/);
    expect(stderr).not.toContain('tooshort-secret-value');
  });

  it('refuses the public test seed in production', async () => {
    const run = refusedBoot({ ...testKeyEnv(), NODE_ENV: 'production', DATABASE_URL: fixture.db.connectionString });
    expect(await run.exited).toBe(1);
    expect(run.output().stderr).toMatch(/HD_XPUB: is derived from the public test mnemonic/);
  });

  it('serves, logs JSON with a request id, and shuts down cleanly on SIGTERM', async () => {
    const run = startAppProcess(MAIN, fixture.env(ANY_LOOPBACK_PORTS));
    const port = await run.port;
    const response = await fetch(
      `http://127.0.0.1:${port}/control/wallet.php?address=0x52908400098527886E0F7030069857D2E4169EE7&callback=${encodeURIComponent('https://shop.io/cb?o=1&token=s3cr3t')}`,
      {
        headers: { 'x-request-id': 'lifecycle-req-1' },
      },
    );
    expect(response.status).toBe(200);
    // /metrics on METRICS_PORT only; /healthz and /readyz on both ports.
    const metricsPort = await new Promise<number>((resolve) => {
      const timer = setInterval(() => {
        const match = /"server":"metrics"[^\n]*listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(run.output().stdout);
        if (match) {
          clearInterval(timer);
          resolve(Number(match[1]));
        }
      }, 50);
    });
    expect(metricsPort).not.toBe(port);
    expect(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()).toContain('route="/control/wallet.php"');
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    for (const p of [port, metricsPort]) expect((await fetch(`http://127.0.0.1:${p}/readyz`)).status).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    const lines = run
      .output()
      .stdout.trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    // One line for the request (written asynchronously, flushed at exit): what it did, its status and time.
    const requestLines = lines.filter((line) => line.reqId === 'lifecycle-req-1');
    expect(requestLines).toEqual([
      expect.objectContaining({
        msg: 'request completed',
        outcome: 'wallet created',
        ipnToken: expect.stringMatching(/…$/),
        res: { statusCode: 200 },
      }),
    ]);
    expect(lines.some((line) => line.msg === 'shutting down' && line.signal === 'SIGTERM')).toBe(true);
    expect(run.output().stdout).not.toContain('s3cr3t');
  });
});
