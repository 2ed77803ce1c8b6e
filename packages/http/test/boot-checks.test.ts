import type { FastifyBaseLogger } from 'fastify';
import type { Pool } from 'pg';
import { ConfigError } from '@gateway/config';
import { assertTokenCounted, assertWalletsHdKey, TokenCheckWhenReachable, type ConfiguredToken } from '../src/boot-checks';

const TOKEN: ConfiguredToken = { chainId: 137, address: '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359' };

/** A TokenRepository's answer: undefined (this token), or why not. */
const tokens = (answer: string | undefined) => ({ register: jest.fn(async (_token: ConfiguredToken) => answer) });

describe('assertTokenCounted', () => {
  it('records the token and lets the app run when the database counts in it', async () => {
    const record = tokens(undefined);
    await expect(assertTokenCounted({ tokens: record, token: TOKEN })).resolves.toBeUndefined();
    expect(record.register).toHaveBeenCalledWith(TOKEN);
  });

  it("refuses with the database's reason, as a USDC_TOKEN_ADDRESS setting error", async () => {
    const refusal = assertTokenCounted({ tokens: tokens('another token'), token: TOKEN });
    await expect(refusal).rejects.toBeInstanceOf(ConfigError);
    await expect(refusal).rejects.toThrow('USDC_TOKEN_ADDRESS: another token');
  });

  it('asks the chain first, and records nothing for a token the gateway cannot count in', async () => {
    const record = tokens(undefined);
    await expect(assertTokenCounted({ tokens: record, token: TOKEN, onChain: async () => 'token has 18 decimals' })).rejects.toThrow(
      'USDC_TOKEN_ADDRESS: token has 18 decimals',
    );
    expect(record.register).not.toHaveBeenCalled();
  });
});

describe('TokenCheckWhenReachable', () => {
  const reachable = (answers: boolean[]) =>
    ({ query: jest.fn(async () => (answers.shift() ? { rows: [] } : Promise.reject(new Error('down')))) }) as unknown as Pool;
  const log = { error: jest.fn() } as unknown as FastifyBaseLogger;

  it('checks nothing at boot while PostgreSQL is away, then refuses readiness while the token is another', async () => {
    const record = tokens('another token');
    const check = new TokenCheckWhenReachable(reachable([false, true]), { tokens: record, token: TOKEN });
    await expect(check.atBoot()).resolves.toBeUndefined();
    expect(record.register).not.toHaveBeenCalled();
    expect(await check.ready(log)).toBe(false);
    expect(log.error).toHaveBeenCalledWith('USDC_TOKEN_ADDRESS: another token; not ready');
  });

  it('refuses at boot where PostgreSQL answers, and asks no more once the token passed', async () => {
    await expect(
      new TokenCheckWhenReachable(reachable([true]), { tokens: tokens('another token'), token: TOKEN }).atBoot(),
    ).rejects.toThrow('USDC_TOKEN_ADDRESS: another token');
    const record = tokens(undefined);
    const check = new TokenCheckWhenReachable(reachable([true, true]), { tokens: record, token: TOKEN });
    await check.atBoot();
    expect(await check.ready(log)).toBe(true);
    expect(record.register).toHaveBeenCalledTimes(1);
  });
});

describe('assertWalletsHdKey', () => {
  const check = (known: string[]) => ({
    knownKeys: async () => known,
    fingerprint: 'abcd1234',
    setting: 'HD_XPUB: its key',
    remedy: 'configure that xpub, or use another database',
  });

  it.each([[[]], [['abcd1234']]])('lets the app run when the database knows %j', async (known) => {
    await expect(assertWalletsHdKey(check(known))).resolves.toBeUndefined();
  });

  it.each([[['0badf00d']], [['abcd1234', '0badf00d']]])('refuses when the database knows %j', async (known) => {
    const refusal = assertWalletsHdKey(check(known));
    await expect(refusal).rejects.toBeInstanceOf(ConfigError);
    await expect(refusal).rejects.toThrow(
      `HD_XPUB: its key (fingerprint abcd1234) is not the key this database's temporary wallets were derived from (${known.join(', ')}); ` +
        'configure that xpub, or use another database',
    );
  });
});
