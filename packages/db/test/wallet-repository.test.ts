import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { WalletRepository, type CreateOrGetResult, type NewWallet, type WalletRow } from '../src/repositories/wallet-repository';

let db: TestDatabase;
let wallets: WalletRepository;
let nextIndex = 0n;

function candidate(callbackUrl: string): NewWallet {
  nextIndex += 1n;
  const hex = nextIndex.toString(16).padStart(40, '0');
  return {
    hdIndex: nextIndex,
    keyFingerprint: 'a1b2c3d4',
    platformFeeBps: 100,
    polygonAddress: `0x${hex}`,
    addressIn: `k1.${randomBytes(8).toString('hex')}`,
    payoutAddress: '0x52908400098527886e0f7030069857d2e4169ee7',
    callbackUrl,
    dedupeKey: Buffer.from(callbackUrl.padEnd(32, '.').slice(0, 32)),
    ipnToken: randomBytes(24).toString('base64url'),
  };
}

beforeAll(async () => {
  db = await createTestDatabase('wallet_repo');
  wallets = new WalletRepository(db.pool);
});
afterAll(() => db.drop());

/** The wallet a candidate got (these candidates bind no callback path, so none meets a claim). */
function walletOf(result: CreateOrGetResult | undefined): { row: WalletRow; created: boolean } {
  if (!result || !('row' in result)) throw new Error(`expected a wallet, got ${JSON.stringify(result)}`);
  return result;
}

describe('WalletRepository.createOrGetMany', () => {
  it('creates new pairs, returns existing ones, and gives identical candidates of one batch one wallet', async () => {
    const existing = candidate('https://shop.io/a');
    const [first] = await wallets.createOrGetMany([existing]);
    expect(walletOf(first).created).toBe(true);

    const twinA = candidate('https://shop.io/b');
    const twinB = candidate('https://shop.io/b');
    const fresh = candidate('https://shop.io/c');
    const again = candidate('https://shop.io/a');
    const results = await wallets.createOrGetMany([twinA, again, twinB, fresh]);

    expect(results.map((r) => walletOf(r).created)).toEqual([true, false, false, true]);
    expect(walletOf(results[1]).row.polygonAddress).toBe(existing.polygonAddress);
    expect(walletOf(results[2]).row).toEqual(walletOf(results[0]).row);
    expect(walletOf(results[3]).row.polygonAddress).toBe(fresh.polygonAddress);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM wallets');
    expect(rows[0].n).toBe(3);
  });

  it('sees the rows of concurrent batches it lost the race to', async () => {
    const pairs = Array.from({ length: 5 }, (_, i) => `https://shop.io/race-${i}`);
    const batches = await Promise.all(Array.from({ length: 8 }, () => wallets.createOrGetMany(pairs.map(candidate))));
    for (let i = 0; i < pairs.length; i += 1) {
      const rowsForPair = batches.map((batch) => walletOf(batch[i]).row.polygonAddress);
      expect(new Set(rowsForPair).size).toBe(1);
      expect(batches.filter((batch) => walletOf(batch[i]).created).length).toBe(1);
    }
  });
});

describe("the own-wallet rule in createOrGetMany's statement", () => {
  it('refuses a candidate paying one of our temporary wallets, as payout or affiliate, and creates the rest of the batch', async () => {
    const [ours] = await wallets.createOrGetMany([candidate('https://shop.io/own-b')]);
    const temporary = walletOf(ours).row.polygonAddress;
    const payingOurs = { ...candidate('https://shop.io/own-a'), payoutAddress: temporary.toUpperCase().replace('0X', '0x') };
    const affiliateOurs = {
      ...candidate('https://shop.io/own-c'),
      affiliate: { affiliateAddress: temporary, affiliateFeeBps: 100, merchantFeeBps: null },
    };
    const both = { ...payingOurs, ...candidate('https://shop.io/own-d'), payoutAddress: temporary, affiliate: affiliateOurs.affiliate };
    const honest = candidate('https://shop.io/own-e');
    // A URL that has a wallet already is refused all the same: the rule comes first.
    const repeatPayingOurs = { ...candidate('https://shop.io/own-b'), payoutAddress: temporary };

    const results = await wallets.createOrGetMany([payingOurs, affiliateOurs, honest, both, repeatPayingOurs]);

    expect(results[0]).toEqual({ temporaryWallet: 'address' });
    expect(results[1]).toEqual({ temporaryWallet: 'affiliate' });
    expect(walletOf(results[2]).created).toBe(true);
    expect(results[3]).toEqual({ temporaryWallet: 'address' });
    expect(results[4]).toEqual({ temporaryWallet: 'address' });
    const { rows } = await db.pool.query<{ callback_url: string }>(
      "SELECT callback_url FROM wallets WHERE callback_url LIKE 'https://shop.io/own-%' ORDER BY callback_url",
    );
    expect(rows.map((row) => row.callback_url)).toEqual(['https://shop.io/own-b', 'https://shop.io/own-e']);
  });

  it('claims no callback path for a refused candidate', async () => {
    const [ours] = await wallets.createOrGetMany([candidate('https://shop.io/own-path-b')]);
    const refused = {
      ...candidate('https://shop.io/own-path/ipn?o=1'),
      payoutAddress: walletOf(ours).row.polygonAddress,
      callbackPath: { key: randomBytes(32), path: 'https://shop.io/own-path/ipn', terms: 'refused-terms' },
    };
    expect(await wallets.createOrGetMany([refused])).toEqual([{ temporaryWallet: 'address' }]);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM callback_paths WHERE path_key = $1', [refused.callbackPath.key]);
    expect(rows[0].n).toBe(0);
  });
});
