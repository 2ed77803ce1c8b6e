import { ConfigError } from '@gateway/config';
import { deployTestTokenWithDecimals } from '@gateway/chain';
import { findFreePort, startAnvil, type RunningAnvil } from '@gateway/testkit';
import { createTestDatabase, type TestDatabase } from '@gateway/app-testkit';
import { SANDBOX_PROVIDER_FEE_BPS } from '@gateway/providers';
import { buildSandboxProviderApp } from '../src/app';
import { loadSandboxProviderConfig } from '../src/config';
import { DEPLOYER, deployFundedToken, freshAddress, newSecret, sandboxEnv } from './sandbox-fixture';

let anvil: RunningAnvil;
let polygonLookalike: RunningAnvil;
let db: TestDatabase;
let env: NodeJS.ProcessEnv;
const secret = newSecret();

const boot = (changes: NodeJS.ProcessEnv) =>
  buildSandboxProviderApp({ config: loadSandboxProviderConfig({ ...env, ...changes }), pool: db.pool, logger: false });

beforeAll(async () => {
  [anvil, polygonLookalike, db] = await Promise.all([
    startAnvil({ chainId: 31337 }),
    startAnvil({ chainId: 137 }),
    createTestDatabase('sandbox_boot'),
  ]);
  const token = await deployFundedToken(anvil);
  env = sandboxEnv({ anvil, token, secret, schema: db.schema, databaseUrl: db.connectionString });
});

afterAll(async () => {
  await db?.drop();
  await Promise.all([anvil?.stop(), polygonLookalike?.stop()]);
});

describe('buildSandboxProviderApp', () => {
  it('starts on a local chain with a test token, and is ready', async () => {
    const app = await boot({});
    try {
      expect((await app.inject('/readyz')).json()).toEqual({ status: 'ok', checks: { postgres: 'ok', chain: 'ok' } });
      expect((await db.pool.query("SELECT to_regclass('sandbox_orders') IS NOT NULL AS present")).rows[0]).toEqual({ present: true });
    } finally {
      await app.close();
    }
  });

  it.each<[string, NodeJS.ProcessEnv, RegExp]>([
    ['in production', { NODE_ENV: 'production' }, /NODE_ENV is production/],
    ['when CHAIN_ID is Polygon mainnet', { CHAIN_ID: '137' }, /CHAIN_ID is 137/],
    [
      'when the token is the real USDC on Polygon',
      { USDC_TOKEN_ADDRESS: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' },
      /native USDC on Polygon/,
    ],
    ['when the token is bridged USDC.e', { USDC_TOKEN_ADDRESS: '0x2791bca1f2de4661ed88a30c99a7a9449aa84174' }, /USDC\.e/],
    ['when there is no contract at the token address', { USDC_TOKEN_ADDRESS: freshAddress() }, /no test token/],
    ['when the chain differs from CHAIN_ID', { CHAIN_ID: '31338' }, /answers chain id 31337, which differs from CHAIN_ID 31338/],
  ])('refuses %s', async (_case, changes, reason) => {
    await expect(boot(changes)).rejects.toThrow(reason);
  });

  it('refuses a token whose decimals() is not 6: it would pay orders off by powers of ten', async () => {
    const eighteen = await deployTestTokenWithDecimals({ ...anvil, deployerKey: DEPLOYER.privateKey, decimals: 18 });
    await expect(boot({ USDC_TOKEN_ADDRESS: eighteen })).rejects.toThrow(/USDC_TOKEN_ADDRESS: token 0x[0-9a-fA-F]{40} has 18 decimals/);
  });

  it('refuses an RPC endpoint that answers chain id 137, whatever CHAIN_ID says', async () => {
    await expect(boot({ CHAIN_RPC_URL: polygonLookalike.rpcUrl })).rejects.toThrow(/answers chain id 137 \(Polygon mainnet\)/);
  });

  it('refuses when the chain does not answer, without repeating the URL', async () => {
    const url = `http://127.0.0.1:${await findFreePort()}/?apikey=secret-key`;
    const failure = boot({ CHAIN_RPC_URL: url });
    await expect(failure).rejects.toThrow(/does not answer eth_chainId/);
    await expect(failure).rejects.not.toThrow(/secret-key/);
  });
});

describe('loadSandboxProviderConfig', () => {
  it('requires the token address and the funder key, and never prints a secret', () => {
    const { USDC_TOKEN_ADDRESS: _token, SANDBOX_FUNDER_PRIVATE_KEY: _key, ...rest } = env;
    expect(() => loadSandboxProviderConfig(rest)).toThrow(ConfigError);
    expect(() => loadSandboxProviderConfig(rest)).toThrow(
      /USDC_TOKEN_ADDRESS[\s\S]*SANDBOX_FUNDER_PRIVATE_KEY|SANDBOX_FUNDER_PRIVATE_KEY[\s\S]*USDC_TOKEN_ADDRESS/,
    );
    const badKey = '0x' + 'ab'.repeat(31);
    expect(() => loadSandboxProviderConfig({ ...env, SANDBOX_FUNDER_PRIVATE_KEY: badKey })).toThrow(ConfigError);
    expect(() => loadSandboxProviderConfig({ ...env, SANDBOX_FUNDER_PRIVATE_KEY: badKey })).not.toThrow(badKey);
  });

  it('refuses a signing secret shorter than 32 bytes', () => {
    const short = Buffer.alloc(31, 7).toString('base64');
    expect(() => loadSandboxProviderConfig({ ...env, SANDBOX_SIGNING_SECRET: short })).toThrow(
      /SANDBOX_SIGNING_SECRET: .*decodes to 31 byte/,
    );
  });

  it('defaults to the local chain, a 1.5% fee and development', () => {
    const { CHAIN_ID: _id, NODE_ENV: _env, ...rest } = env;
    const { raw } = loadSandboxProviderConfig(rest);
    expect([raw.CHAIN_ID, raw.PROVIDER_FEE_BPS, raw.NODE_ENV, raw.PORT]).toEqual([31337, 150, 'development', 3300]);
    // The gateway's sandbox adapter estimates the USDC an order brings with this default (it reads no sandbox setting).
    expect(raw.PROVIDER_FEE_BPS).toBe(SANDBOX_PROVIDER_FEE_BPS);
  });
});
