import { accessSync, constants } from 'node:fs';
import net from 'node:net';
import { createPublicClient, createWalletClient, http } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import {
  ANVIL_MNEMONIC,
  anvilAccounts,
  findFreePort,
  requestChainId,
  resolveAnvilBinary,
  startAnvil,
  type RunningAnvil,
} from '../src/anvil';
import { sleep } from '../src/wait-for';

/** True while a process with this pid exists (a reaped child no longer does). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

describe('startAnvil', () => {
  const started: RunningAnvil[] = [];

  afterAll(async () => {
    // Covers tests that failed before stopping what they started.
    await Promise.all(started.map((anvil) => anvil.stop()));
  });

  async function start(options?: Parameters<typeof startAnvil>[0]): Promise<RunningAnvil> {
    const anvil = await startAnvil(options);
    started.push(anvil);
    return anvil;
  }

  it('finds the anvil binary itself inside the platform package, not a wrapper script', () => {
    const binary = resolveAnvilBinary();
    expect(binary).toMatch(/@foundry-rs[\\/]anvil-[a-z0-9]+-[a-z0-9]+[\\/]bin[\\/]anvil(\.exe)?$/);
    expect(() => accessSync(binary, constants.X_OK)).not.toThrow();
  });

  it('runs two chains at once on different ports, and stop() leaves no process behind', async () => {
    const [polygon, local] = await Promise.all([start(), start({ chainId: 31337 })]);

    expect(polygon.port).not.toBe(local.port);
    expect(polygon.rpcUrl).toBe(`http://127.0.0.1:${polygon.port}`);
    expect(polygon.chainId).toBe(137);
    expect(await requestChainId(polygon.rpcUrl)).toBe(137);
    expect(await requestChainId(local.rpcUrl)).toBe(31337);
    expect(processExists(polygon.pid)).toBe(true);
    expect(processExists(local.pid)).toBe(true);

    await Promise.all([polygon.stop(), local.stop()]);

    expect(processExists(polygon.pid)).toBe(false);
    expect(processExists(local.pid)).toBe(false);
    await expect(requestChainId(polygon.rpcUrl)).rejects.toThrow();
    await expect(polygon.stop()).resolves.toBeUndefined();
  });

  it('funds the documented accounts, derived from ANVIL_MNEMONIC', async () => {
    const anvil = await start();
    const client = createPublicClient({ transport: http(anvil.rpcUrl, { retryCount: 0 }) });

    const derived = anvilAccounts.map((_, index) => mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index }).address);
    expect(derived).toEqual(anvilAccounts.map((account) => account.address));
    const served = await createWalletClient({ transport: http(anvil.rpcUrl, { retryCount: 0 }) }).getAddresses();
    expect(served.slice(0, anvilAccounts.length)).toEqual(anvilAccounts.map((account) => account.address));
    expect(await client.getBalance({ address: anvilAccounts[0].address })).toBe(10_000n * 10n ** 18n);

    await anvil.stop();
  });

  it('mines on a timer when blockTime is set', async () => {
    const anvil = await start({ blockTime: 1 });
    const client = createPublicClient({ transport: http(anvil.rpcUrl, { retryCount: 0 }) });

    await sleep(1_500);
    expect(await client.getBlockNumber()).toBeGreaterThan(0n);

    await anvil.stop();
  });

  it('reports the finalized block two epochs behind the head, or the head itself with slotsInAnEpoch 0', async () => {
    for (const [slotsInAnEpoch, lag] of [
      [undefined, 64n],
      [1, 2n],
      [0, 0n],
    ] as const) {
      const anvil = await start({ slotsInAnEpoch });
      const client = createPublicClient({ transport: http(anvil.rpcUrl, { retryCount: 0 }) });
      await client.request({ method: 'anvil_mine' as 'eth_chainId', params: ['0x64'] as never });
      expect((await client.getBlock({ blockTag: 'finalized' })).number).toBe(100n - lag);
      await anvil.stop();
    }
  });

  it('fails with a clear error when anvil does not answer in time', async () => {
    await expect(startAnvil({ readyTimeoutMs: 1 })).rejects.toThrow(
      /anvil did not answer eth_chainId on http:\/\/127\.0\.0\.1:\d+ within 1 ms/,
    );
  });
});

describe('findFreePort', () => {
  it('gives ports below the ephemeral range that an app can listen on', async () => {
    for (let i = 0; i < 20; i += 1) {
      const port = await findFreePort();
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(32_768);
      const server = net.createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('never hands out a port twice in a process, so a stack may find all its ports before it binds any', async () => {
    const ports = [];
    for (let i = 0; i < 300; i += 1) ports.push(await findFreePort());
    expect(new Set(ports).size).toBe(ports.length);
  });

  it("picks in this jest worker's slice of the range, which no other worker picks in", async () => {
    const worker = Number(process.env.JEST_WORKER_ID);
    const size = Math.floor((32_768 - 20_000) / 8);
    const from = 20_000 + ((worker - 1) % 8) * size;
    for (let i = 0; i < 20; i += 1) {
      const port = await findFreePort();
      expect(port).toBeGreaterThanOrEqual(from);
      expect(port).toBeLessThan(from + size);
    }
  });
});
