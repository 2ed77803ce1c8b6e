import { randomBytes } from 'node:crypto';
import { ChainCursorRepository, DepositRepository, type NewDeposit } from '@gateway/db/chain-watcher';
import { createTestDatabase, type TestDatabase } from '@gateway/app-testkit';
import { insertWallet, strangerAddress } from '../support/wallets';

let db: TestDatabase;
let deposits: DepositRepository;
let walletId: string;
let walletAddress: string;

const hash = () => `0x${randomBytes(32).toString('hex')}`;
const TOKEN = `0x${'a0'.repeat(20)}`;
const deposit = (overrides: Partial<NewDeposit> = {}): NewDeposit => ({
  token: TOKEN,
  txHash: hash(),
  logIndex: 0,
  blockNumber: 100n,
  blockHash: hash(),
  blockTime: new Date('2026-11-02T10:00:00Z'),
  walletId,
  fromAddress: strangerAddress(),
  amount: 5_000_000n,
  ...overrides,
});
const recordOne = async (log: NewDeposit): Promise<string> => {
  const [written] = await deposits.recordSeen(db.pool, [log]);
  if (!written) throw new Error('nothing written');
  return written.id;
};
const statusOf = async (id: string) =>
  (
    await db.pool.query<{ status: string; block: string; blockTime: Date }>(
      'SELECT status, block_number::text AS block, block_time AS "blockTime" FROM deposits WHERE id = $1',
      [id],
    )
  ).rows[0];

beforeAll(async () => {
  db = await createTestDatabase('watcher_repos');
  deposits = new DepositRepository(db.pool, 137);
  ({ id: walletId, address: walletAddress } = await insertWallet(db.pool));
});

afterAll(async () => {
  await db.drop();
});

describe('DepositRepository', () => {
  it('matches recipients against temporary wallets in one query, ignoring strangers', async () => {
    const matched = await deposits.matchTemporaryWallets([walletAddress, strangerAddress()]);
    expect([...matched]).toEqual([[walletAddress, walletId]]);
  });

  it('records a log once, however often it is read', async () => {
    const log = deposit();
    const [first] = await deposits.recordSeen(db.pool, [log]);
    expect(first).toEqual({ id: expect.any(String), inserted: true, token: TOKEN });
    expect(await deposits.recordSeen(db.pool, [log])).toEqual([]);
    expect(await deposits.recordSeen(db.pool, [{ ...log }, { ...log, logIndex: 1 }])).toHaveLength(1);
  });

  it('brings an orphaned row back to seen when its log is read again, in its new block', async () => {
    const log = deposit({ blockNumber: 200n });
    const id = await recordOne(log);
    expect(await deposits.markOrphaned(db.pool, [{ blockNumber: 200n, blockHash: log.blockHash }])).toEqual([id]);
    const moved = { ...log, blockNumber: 201n, blockHash: hash(), blockTime: new Date('2026-11-02T10:00:02Z') };
    expect(await deposits.recordSeen(db.pool, [moved])).toEqual([{ id, inserted: false, token: TOKEN }]);
    expect(await statusOf(id)).toEqual({ status: 'seen', block: '201', blockTime: moved.blockTime });
  });

  it('never touches a final row again', async () => {
    const log = deposit({ blockNumber: 300n });
    const id = await recordOne(log);
    expect(await deposits.markFinal(db.pool, [{ blockNumber: 300n, blockHash: log.blockHash }])).toEqual([id]);
    expect(await deposits.recordSeen(db.pool, [{ ...log, blockNumber: 301n, blockHash: hash() }])).toEqual([]);
    expect(await deposits.markOrphaned(db.pool, [{ blockNumber: 300n, blockHash: log.blockHash }])).toEqual([]);
    expect(await statusOf(id)).toMatchObject({ status: 'final', block: '300' });
  });

  it('lists unfinal blocks oldest first, numerically', async () => {
    await deposits.recordSeen(db.pool, [deposit({ blockNumber: 9n }), deposit({ blockNumber: 10n })]);
    const blocks = (await deposits.unfinalBlocks()).map((b) => b.blockNumber);
    expect(blocks).toEqual([...blocks].sort((a, b) => (a < b ? -1 : 1)));
    expect(blocks.slice(0, 2)).toEqual([9n, 10n]);
  });
});

describe('ChainCursorRepository', () => {
  const key = { chainId: 137, token: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' };

  it('keeps the first cursor it is given, and moves only from where it stands', async () => {
    const start = { blockNumber: 10n, blockHash: hash() };
    expect(await new ChainCursorRepository(db.pool).initialize(key, start)).toEqual(start);
    const cursors = new ChainCursorRepository(db.pool);
    expect(await cursors.initialize(key, { blockNumber: 99n, blockHash: hash() })).toEqual(start);

    const next = { blockNumber: 20n, blockHash: hash() };
    expect(await cursors.move(db.pool, key, start, next)).toBe(true);
    expect(await cursors.move(db.pool, key, start, { blockNumber: 30n, blockHash: hash() })).toBe(false);
    expect(await cursors.get({ ...key, token: key.token.toLowerCase() })).toEqual(next);
  });
});
