import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { ConfigError } from '@gateway/config';
import { anvilAccounts } from '@gateway/testkit';
import { english, generateMnemonic, generatePrivateKey } from 'viem/accounts';
import { loadSettlementConfig } from '../../src/config';
import { PUBLIC_TEST_MNEMONIC } from '@gateway/chain';

const realMnemonic = generateMnemonic(english);
const realKey = generatePrivateKey();

function env(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/gateway',
    REDIS_URL: 'rediss://gw-settlement-worker:a-password-of-its-own@redis.example:6380',
    CHAIN_RPC_URL: 'https://polygon-rpc.example',
    SETTLEMENT_MNEMONIC: realMnemonic,
    RELAYER_PRIVATE_KEY: realKey,
    PLATFORM_FEE_ADDRESS: '0x52908400098527886E0F7030069857D2E4169EE7',
    ...overrides,
  };
}

function problemsOf(input: NodeJS.ProcessEnv): string[] {
  try {
    loadSettlementConfig(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('settlement worker configuration', () => {
  it('has the documented defaults', () => {
    const config = loadSettlementConfig(env());
    expect(config.raw).toMatchObject({
      PAYOUT_BELOW_GAS_COST: 'hold',
      METRICS_PORT: 3102,
      CHAIN_ID: 137,
      WORKER_CONCURRENCY: 4,
      FEE_BUMP_PERCENT: 25,
    });
    expect(config.dustThreshold).toBe(30_000n);
    expect(config.nativePriceUsdc).toBe(500_000n);
    // The platform fee is each wallet's own, recorded at creation: the worker has no setting for it.
    expect(config.raw).not.toHaveProperty('PLATFORM_FEE_BPS');
    expect(config.tokenAddress).toBe('0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359');
    expect(config.crashAt).toBeUndefined();
  });

  it('requires the seed, the relayer key and the fee address', () => {
    const problems = problemsOf(env({ SETTLEMENT_MNEMONIC: undefined, RELAYER_PRIVATE_KEY: undefined, PLATFORM_FEE_ADDRESS: undefined }));
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['PLATFORM_FEE_ADDRESS', 'RELAYER_PRIVATE_KEY', 'SETTLEMENT_MNEMONIC']);
  });

  it('in production, refuses the public test mnemonic, public test keys and the crash hook, without echoing secrets', () => {
    const problems = problemsOf(
      env({
        SETTLEMENT_MNEMONIC: PUBLIC_TEST_MNEMONIC,
        RELAYER_PRIVATE_KEY: anvilAccounts[1].privateKey,
        SETTLEMENT_CRASH_AT: 'before-sign',
      }),
    );
    expect(problems).toEqual([
      expect.stringMatching(/^SETTLEMENT_MNEMONIC: is the public test mnemonic/),
      expect.stringMatching(/^RELAYER_PRIVATE_KEY: is a public test account key/),
      expect.stringMatching(/^SETTLEMENT_CRASH_AT: is a test hook/),
    ]);
    const text = problems.join('\n');
    expect(text).not.toContain('junk');
    expect(text).not.toContain(anvilAccounts[1].privateKey.slice(2, 20));
  });

  it('in production refuses a chain other than Polygon PoS (Polygon Amoy only with CHAIN_NETWORK=testnet)', () => {
    expect(problemsOf(env({ CHAIN_ID: '31337' }))).toEqual([expect.stringMatching(/^CHAIN_ID: 31337 is not Polygon PoS \(137\)/)]);
    expect(problemsOf(env({ CHAIN_ID: '80002', CHAIN_NETWORK: 'testnet' }))).toEqual([]);
  });

  it('accepts the test mnemonic outside production', () => {
    expect(loadSettlementConfig(env({ NODE_ENV: 'development', SETTLEMENT_MNEMONIC: PUBLIC_TEST_MNEMONIC })).mnemonic).toBe(
      PUBLIC_TEST_MNEMONIC,
    );
  });

  it('refuses a mnemonic with a wrong checksum, and never prints it', () => {
    const words = realMnemonic.split(' ');
    // One last word in sixteen still makes a valid checksum: take the first that does not.
    const withLastWord = (last: string) => [...words.slice(0, -1), last].join(' ');
    const broken = withLastWord(wordlist.find((last) => !validateMnemonic(withLastWord(last), wordlist))!);
    const problems = problemsOf(env({ SETTLEMENT_MNEMONIC: broken }));
    expect(problems).toEqual([expect.stringMatching(/^SETTLEMENT_MNEMONIC: is not a valid BIP-39/)]);
    // Two words in a row, not one: a single word of the list ("valid", "use") may be a word of the message itself.
    const printed = problems.join();
    for (let i = 0; i + 1 < words.length; i += 1) expect(printed).not.toContain(`${words[i]} ${words[i + 1]}`);
  });

  it('reads secrets from *_FILE', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'settlement-config-'));
    writeFileSync(path.join(dir, 'seed'), `${realMnemonic}\n`);
    writeFileSync(path.join(dir, 'relayer'), realKey);
    const config = loadSettlementConfig(
      env({
        SETTLEMENT_MNEMONIC: undefined,
        RELAYER_PRIVATE_KEY: undefined,
        SETTLEMENT_MNEMONIC_FILE: path.join(dir, 'seed'),
        RELAYER_PRIVATE_KEY_FILE: path.join(dir, 'relayer'),
      }),
    );
    expect(config.mnemonic).toBe(realMnemonic);
    expect(config.relayerKey).toBe(realKey);
  });

  it.each([
    [{ DATABASE_POOL_SIZE: '4', WORKER_CONCURRENCY: '4' }, /^DATABASE_POOL_SIZE: must be larger/],
    [{ CHAIN_RPC_URL: 'wss://polygon.example' }, /^CHAIN_RPC_URL: settlement needs an http/],
    [{ PLATFORM_FEE_ADDRESS: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' }, /^PLATFORM_FEE_ADDRESS: must be a wallet/],
    [{ NATIVE_PRICE_USDC: '0' }, /^NATIVE_PRICE_USDC: must be above 0/],
    [{ NATIVE_PRICE_USDC: '0.1234567' }, /^NATIVE_PRICE_USDC/],
    [{ PAYOUT_BELOW_GAS_COST: 'always' }, /^PAYOUT_BELOW_GAS_COST/],
    [{ DUST_THRESHOLD: '0.01' }, /^DUST_THRESHOLD/],
    [{ FEE_BUMP_PERCENT: '5' }, /^FEE_BUMP_PERCENT/],
  ])('refuses %p', (overrides, message) => {
    expect(problemsOf(env(overrides))).toEqual([expect.stringMatching(message)]);
  });

  describe('the other USDC', () => {
    const USDC_E = '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174';
    const NATIVE = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

    it('follows USDC.e beside native USDC on Polygon PoS by default, its deposits held', () => {
      expect(loadSettlementConfig(env()).otherUsdc).toEqual({ token: USDC_E.toLowerCase(), deposits: 'hold' });
      // Settling USDC.e instead, the other one is native USDC.
      expect(loadSettlementConfig(env({ USDC_TOKEN_ADDRESS: USDC_E })).otherUsdc.token).toBe(NATIVE.toLowerCase());
      expect(loadSettlementConfig(env({ OTHER_USDC_TOKEN_ADDRESS: 'none' })).otherUsdc.token).toBeUndefined();
    });

    it('names no other USDC off Polygon PoS unless told (a local chain names its second test token)', () => {
      const local = { NODE_ENV: 'development', CHAIN_ID: '31337', USDC_TOKEN_ADDRESS: '0x5FbDB2315678afecb367f032d93F642f64180aa3' };
      expect(loadSettlementConfig(env(local)).otherUsdc.token).toBeUndefined();
      const second = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
      expect(loadSettlementConfig(env({ ...local, OTHER_USDC_TOKEN_ADDRESS: second })).otherUsdc.token).toBe(second.toLowerCase());
    });

    it.each([
      [{ OTHER_USDC_DEPOSITS: 'forward' }, /^OTHER_USDC_DEPOSITS: forward is not built: .*salt instead of chainId/],
      [{ OTHER_USDC_TOKEN_ADDRESS: NATIVE }, /^OTHER_USDC_TOKEN_ADDRESS: .* is USDC_TOKEN_ADDRESS itself/],
      [
        { OTHER_USDC_TOKEN_ADDRESS: '0x52908400098527886E0F7030069857D2E4169EE7' },
        /^OTHER_USDC_TOKEN_ADDRESS: on Polygon PoS the two USDCs/,
      ],
      [{ OTHER_USDC_DEPOSITS: 'keep' }, /^OTHER_USDC_DEPOSITS/],
      [{ OTHER_USDC_TOKEN_ADDRESS: 'usdc.e' }, /^OTHER_USDC_TOKEN_ADDRESS/],
    ])('refuses %p', (overrides, message) => {
      expect(problemsOf(env(overrides))).toEqual([expect.stringMatching(message)]);
    });
  });
});
