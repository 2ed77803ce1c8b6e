import { createBatcher } from '@gateway/db/callback-worker';
import { sleep } from '@gateway/testkit';
import { HostLimiter, merchantKeyOf } from '../../src/services/host-limiter';

describe('createBatcher', () => {
  it('sends the calls made together as one batch and hands each caller its own result', async () => {
    const batches: number[][] = [];
    const double = createBatcher(
      async (items: number[]) => {
        batches.push(items);
        return items.map((item) => item * 2);
      },
      { maxBatchSize: 10, maxInFlight: 1, lingerMs: 0 },
    );
    expect(await Promise.all([1, 2, 3].map(double))).toEqual([2, 4, 6]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('collects the calls made while a batch runs into the next one, up to the batch size', async () => {
    const batches: number[][] = [];
    let finishFirst: () => void = () => undefined;
    const run = createBatcher(
      async (items: number[]) => {
        batches.push(items);
        if (batches.length === 1) await new Promise<void>((resolve) => (finishFirst = resolve));
        return items;
      },
      { maxBatchSize: 2, maxInFlight: 1, lingerMs: 0 },
    );
    const first = run(1);
    await sleep(10);
    const later = [2, 3, 4].map(run);
    finishFirst();
    await Promise.all([first, ...later]);
    expect(batches).toEqual([[1], [2, 3], [4]]);
  });

  it('lets a batch that is not full wait `lingerMs` for more items, and sends a full one at once', async () => {
    const batches: number[][] = [];
    const run = createBatcher(
      async (items: number[]) => {
        batches.push(items);
        return items;
      },
      { maxBatchSize: 3, maxInFlight: 1, lingerMs: 30 },
    );
    const first = run(1);
    await sleep(10);
    const second = run(2);
    await Promise.all([first, second]);
    expect(batches).toEqual([[1, 2]]);
    await Promise.all([run(3), run(4), run(5)]);
    expect(batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it('fails every call of a batch that fails, and keeps working', async () => {
    let fail = true;
    const run = createBatcher(
      async (items: number[]) => {
        if (fail) throw new Error('database down');
        return items;
      },
      { maxBatchSize: 10, maxInFlight: 1, lingerMs: 0 },
    );
    await expect(Promise.all([run(1), run(2)])).rejects.toThrow('database down');
    fail = false;
    await expect(run(3)).resolves.toBe(3);
  });
});

describe('HostLimiter', () => {
  it('lets `perHost` through per host, queues a few more in order, and refuses the rest', async () => {
    const limiter = new HostLimiter(2, 1);
    const a1 = await limiter.acquire('a.example');
    const a2 = await limiter.acquire('a.example');
    const b1 = await limiter.acquire('b.example');
    expect([a1, a2, b1].every((release) => typeof release === 'function')).toBe(true);

    let a3Started = false;
    const a3 = limiter.acquire('a.example').then((release) => {
      a3Started = true;
      return release;
    });
    expect(await limiter.acquire('a.example')).toBeUndefined();
    await Promise.resolve();
    expect(a3Started).toBe(false);

    a1!();
    a1!(); // a second release of the same slot changes nothing
    const release3 = await a3;
    expect(a3Started).toBe(true);
    expect(limiter.inFlight('a.example')).toBe(2);
    a2!();
    release3!();
    b1!();
    expect(limiter.inFlight('a.example')).toBe(0);
    expect(limiter.inFlight('b.example')).toBe(0);
  });
});

describe('merchantKeyOf: what the per-host limit counts', () => {
  it('counts a name by its registrable domain, so wildcard subdomains share one limit', () => {
    for (const url of [
      'https://a.evil.com/cb',
      'https://b.evil.com/cb',
      'http://x.y.evil.com:8080/cb',
      'https://EVIL.com./cb',
      'https://evil.com/cb',
    ]) {
      expect(merchantKeyOf(url)).toBe('evil.com');
    }
    expect(merchantKeyOf('https://a.shop.co.uk/ipn')).toBe('shop.co.uk');
    expect(merchantKeyOf('https://b.other.co.uk/ipn')).toBe('other.co.uk');
  });

  it('counts an IP literal by its address, however it is spelled', () => {
    for (const url of ['http://127.0.0.1:3400/cb', 'http://2130706433/cb', 'http://0x7f.1/cb', 'http://[::ffff:127.0.0.1]/cb']) {
      expect(merchantKeyOf(url)).toBe('127.0.0.1');
    }
    expect(merchantKeyOf('http://[2001:db8::1]/cb')).toBe('2001:db8::1');
    expect(merchantKeyOf('http://[2001:0db8:0::1]/cb')).toBe('2001:db8::1');
  });

  it('keeps a name without a public suffix whole', () => {
    expect(merchantKeyOf('http://localhost:3400/cb')).toBe('localhost');
    expect(merchantKeyOf('http://intranet/cb')).toBe('intranet');
  });
});

describe('HostLimiter.close', () => {
  it('sends the waiters away and refuses new slots, so a closing worker starts no new attempt', async () => {
    const limiter = new HostLimiter(1, 2);
    const first = await limiter.acquire('a.example');
    const waiting = limiter.acquire('a.example');
    limiter.close();
    expect(await waiting).toBeUndefined();
    expect(await limiter.acquire('b.example')).toBeUndefined();
    first!();
    expect(limiter.inFlight('a.example')).toBe(0);
  });
});
