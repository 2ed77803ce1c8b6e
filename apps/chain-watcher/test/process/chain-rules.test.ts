import { backoffDelayMs, reorgFloor } from '../../src/chain-rules';
import { loadChainWatcherConfig } from '../../src/config';
import { leaderLockKey } from '../../src/services/leader-lock';

describe('reorgFloor', () => {
  it('goes back to the newest block the finality rule counts as final', () => {
    expect(reorgFloor(200n, { head: 200n, mode: 'depth', boundary: 136n }, 64)).toBe(136n);
    expect(reorgFloor(200n, { head: 200n, mode: 'finalized', boundary: 180n }, 64)).toBe(180n);
  });

  it('trusts no depth where the node serves the finalized tag: a stalled finalized block is the floor', () => {
    expect(reorgFloor(5_000n, { head: 5_000n, mode: 'finalized', boundary: 1_000n }, 64)).toBe(1_000n);
  });

  it('picks the depth while the rule is undecided (only to choose where to read again from)', () => {
    expect(reorgFloor(200n, { head: 200n, mode: undefined, boundary: undefined }, 64)).toBe(136n);
  });

  it('always lands below the cursor and never below genesis', () => {
    expect(reorgFloor(200n, { head: 200n, mode: 'finalized', boundary: 200n }, 0)).toBe(199n);
    expect(reorgFloor(5n, { head: 6n, mode: undefined, boundary: undefined }, 64)).toBe(0n);
  });
});

describe('backoffDelayMs', () => {
  it('doubles per failure between half and all of the ceiling, capped', () => {
    expect(backoffDelayMs(1, 500, 30_000, () => 0)).toBe(250);
    expect(backoffDelayMs(1, 500, 30_000, () => 1)).toBe(500);
    expect(backoffDelayMs(4, 500, 30_000, () => 1)).toBe(4_000);
    expect(backoffDelayMs(50, 500, 30_000, () => 1)).toBe(30_000);
  });
});

describe('leaderLockKey', () => {
  it('is a signed 64-bit key, one per schema, chain and token (any case)', () => {
    const scope = { schema: 'public', chainId: 137, token: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' };
    const key = BigInt(leaderLockKey(scope));
    expect(key).toBe(BigInt.asIntN(64, key));
    expect(leaderLockKey({ ...scope, token: scope.token.toLowerCase() })).toBe(key.toString());
    expect(leaderLockKey({ ...scope, chainId: 80002 })).not.toBe(key.toString());
    expect(leaderLockKey({ ...scope, schema: 'other' })).not.toBe(key.toString());
  });
});

describe('loadChainWatcherConfig', () => {
  // NODE_ENV unset is production: the app's own Redis user.
  const env = {
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/gateway',
    CHAIN_RPC_URL: 'http://127.0.0.1:8545',
    REDIS_URL: 'redis://gw-chain-watcher:a-password-of-its-own@10.0.0.5:6379',
  };

  it('defaults to Polygon PoS native USDC, port 3101, and the head as the start', () => {
    const config = loadChainWatcherConfig(env);
    expect(config.raw).toMatchObject({ CHAIN_ID: 137, METRICS_PORT: 3101, MAX_BLOCK_RANGE: 2000, POLL_INTERVAL_MS: 2000 });
    expect(config.tokenAddress).toBe('0x3c499c542cef5e3811e1192ce70d8cc03d5c3359');
    expect(config.startBlock).toBeUndefined();
  });

  it('turns START_BLOCK (the first block to scan) into the first cursor, the block before it', () => {
    expect(loadChainWatcherConfig({ ...env, START_BLOCK: '65000000' }).startBlock).toBe(64_999_999n);
    expect(loadChainWatcherConfig({ ...env, START_BLOCK: '0' }).startBlock).toBe(0n);
  });

  it('in production refuses a chain other than Polygon PoS, and Polygon Amoy unless CHAIN_NETWORK=testnet', () => {
    const production = { ...env, NODE_ENV: 'production' };
    expect(() => loadChainWatcherConfig({ ...production, CHAIN_ID: '31337' })).toThrow(/CHAIN_ID: 31337 is not Polygon PoS \(137\)/);
    expect(() => loadChainWatcherConfig({ ...production, CHAIN_ID: '80002' })).toThrow(/CHAIN_ID: 80002 is not Polygon PoS/);
    expect(loadChainWatcherConfig({ ...production, CHAIN_ID: '80002', CHAIN_NETWORK: 'testnet' }).raw.CHAIN_ID).toBe(80_002);
    expect(loadChainWatcherConfig({ ...env, NODE_ENV: 'development', CHAIN_ID: '31337' }).raw.CHAIN_ID).toBe(31_337);
  });

  it('refuses a missing RPC URL and a malformed token address, naming them', () => {
    expect(() => loadChainWatcherConfig({ DATABASE_URL: env.DATABASE_URL, USDC_TOKEN_ADDRESS: '0x123' })).toThrow(
      /CHAIN_RPC_URL[\s\S]*USDC_TOKEN_ADDRESS|USDC_TOKEN_ADDRESS[\s\S]*CHAIN_RPC_URL/,
    );
  });
});
