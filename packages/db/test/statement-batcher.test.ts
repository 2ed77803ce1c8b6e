import { randomBytes, randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { createBatcher } from '../src/statement-batcher';
import { WalletRepository, type NewWallet } from '../src/repositories/wallet-repository';
import { PaymentRepository, type NewPayment, type RecordedCheckout } from '../src/repositories/payment-repository';
import { CallbackDeliveryRepository, type CallbackAttemptRecord } from '../src/repositories/callback-delivery-repository';
import { sampleExpectation } from './support/payment-expectation';

/** What pg throws for an error PostgreSQL reports: a message and the SQLSTATE in `code`. */
function databaseError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity: 'ERROR' });
}

const together = { maxBatchSize: 100, maxInFlight: 1, lingerMs: 5 };

describe('createBatcher: a row the database refuses fails alone', () => {
  it('splits a batch refused for the data of a row until each caller has its own answer', async () => {
    const statements: number[][] = [];
    // Like an INSERT: the whole statement fails when any of its rows holds a NUL.
    const run = createBatcher(async (items: number[]) => {
      statements.push(items);
      if (items.includes(13)) throw databaseError('22021', 'invalid byte sequence for encoding "UTF8": 0x00');
      return items.map((item) => item * 2);
    }, together);
    const items = Array.from({ length: 40 }, (_, i) => i);
    const results = await Promise.allSettled(items.map(run));
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    expect(results[13]).toMatchObject({ status: 'rejected', reason: { code: '22021' } });
    results.forEach((result, i) => {
      if (i !== 13) expect(result).toEqual({ status: 'fulfilled', value: i * 2 });
    });
    // Halving finds the row in a few statements, not one per row.
    expect(statements[0]).toHaveLength(40);
    expect(statements.length).toBeLessThanOrEqual(1 + 2 * Math.ceil(Math.log2(40)));
  });

  it.each([
    ['a constraint violation (23505)', '23505'],
    ['a check violation (23514)', '23514'],
    ['a value out of range (22003)', '22003'],
    ['a malformed value (22P02)', '22P02'],
    ['an index row too large (54000)', '54000'],
  ])('splits on %s', async (_name, code) => {
    const run = createBatcher(async (items: string[]) => {
      if (items.includes('bad')) throw databaseError(code, 'refused');
      return items;
    }, together);
    const results = await Promise.allSettled(['a', 'bad', 'b', 'c'].map(run));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  });

  it('splits down to every refused row, each failing with its own error', async () => {
    const run = createBatcher(async (items: string[]) => {
      const bad = items.find((item) => item.startsWith('bad'));
      if (bad) throw databaseError('23514', `refused ${bad}`);
      return items;
    }, together);
    const results = await Promise.allSettled(['a', 'bad1', 'b', 'c', 'bad2', 'd', 'e', 'bad3'].map(run));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'a',
      'refused bad1',
      'b',
      'c',
      'refused bad2',
      'd',
      'e',
      'refused bad3',
    ]);
  });

  it.each([
    ['a lost connection', Object.assign(new Error('Connection terminated unexpectedly'), {})],
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['an admin shutdown (57P01)', databaseError('57P01', 'terminating connection due to administrator command')],
    ['a statement timeout (57014)', databaseError('57014', 'canceling statement due to statement timeout')],
    ['a deadlock (40P01)', databaseError('40P01', 'deadlock detected')],
    ['too many connections (53300)', databaseError('53300', 'sorry, too many clients already')],
    ['a bug in the caller', new TypeError('cannot read properties of undefined')],
  ])('fails the whole batch at once, as before, on %s', async (_name, error) => {
    let statements = 0;
    const run = createBatcher(async () => {
      statements += 1;
      throw error;
    }, together);
    const results = await Promise.allSettled([1, 2, 3, 4].map(run));
    expect(results.every((r) => r.status === 'rejected' && r.reason === error)).toBe(true);
    expect(statements).toBe(1);
  });

  it('fails a single refused item with its error, trying it once', async () => {
    let statements = 0;
    const run = createBatcher(async (): Promise<number[]> => {
      statements += 1;
      throw databaseError('22021', 'NUL');
    }, together);
    await expect(run(1)).rejects.toMatchObject({ code: '22021' });
    expect(statements).toBe(1);
  });

  it('keeps working after a split, batching again', async () => {
    const statements: string[][] = [];
    const run = createBatcher(async (items: string[]) => {
      statements.push(items);
      if (items.includes('bad')) throw databaseError('22021', 'NUL');
      return items;
    }, together);
    await Promise.allSettled(['a', 'bad', 'b'].map(run));
    statements.length = 0;
    expect(await Promise.all(['x', 'y', 'z'].map(run))).toEqual(['x', 'y', 'z']);
    expect(statements).toEqual([['x', 'y', 'z']]);
  });
});

describe('every batched statement isolates a row PostgreSQL refuses', () => {
  let db: TestDatabase;
  let index = 1000n;

  beforeAll(async () => {
    db = await createTestDatabase('batch_isolation');
  });
  afterAll(() => db.drop());

  const wallet = (callbackUrl: string): NewWallet => {
    index += 1n;
    return {
      hdIndex: index,
      keyFingerprint: 'a1b2c3d4',
      platformFeeBps: 100,
      polygonAddress: `0x${index.toString(16).padStart(40, '0')}`,
      addressIn: `k1.${randomBytes(8).toString('hex')}`,
      payoutAddress: '0x52908400098527886e0f7030069857d2e4169ee7',
      callbackUrl,
      dedupeKey: randomBytes(32),
      ipnToken: randomBytes(24).toString('base64url'),
    };
  };

  it('Create Wallet (wallets insert): 40 honest candidates beside one with a NUL are all created', async () => {
    const wallets = new WalletRepository(db.pool);
    const create = createBatcher((candidates: NewWallet[]) => wallets.createOrGetMany(candidates), together);
    const candidates = Array.from({ length: 41 }, (_, i) => wallet(i === 20 ? 'https://shop.io/\u0000' : `https://shop.io/ipn?order=${i}`));
    const results = await Promise.allSettled(candidates.map(create));
    expect(results[20]).toMatchObject({ status: 'rejected', reason: { code: '22021' } });
    expect(results.filter((r) => r.status === 'fulfilled' && 'created' in r.value && r.value.created)).toHaveLength(40);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM wallets WHERE callback_url LIKE $1', [
      'https://shop.io/ipn?order=%',
    ]);
    expect(rows[0].n).toBe(40);
  });

  it('Process Payment (payments insert): 40 honest payments beside one refused are all recorded', async () => {
    const target = wallet('https://shop.io/ipn?order=payments');
    await new WalletRepository(db.pool).createOrGetMany([target]);
    const payments = new PaymentRepository(db.pool);
    const record = createBatcher((batch: NewPayment[]) => payments.insertManyForWallets(batch, 100), together);
    const batch = Array.from(
      { length: 41 },
      (_, i): NewPayment => ({
        id: randomUUID(),
        polygonAddress: target.polygonAddress,
        amount: '49.99',
        currency: 'USD',
        provider: 'moonpay',
        email: i === 7 ? 'jane\u0000@shop.io' : `jane${i}@shop.io`,
        keyHash: randomBytes(32),
        expectation: sampleExpectation(),
      }),
    );
    const results = await Promise.allSettled(batch.map(record));
    expect(results[7]).toMatchObject({ status: 'rejected', reason: { code: '22021' } });
    expect(results.filter((r) => r.status === 'fulfilled' && r.value === 'recorded')).toHaveLength(40);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM payments');
    expect(rows[0].n).toBe(40);
  });

  it('Process Payment (checkouts recorded): 40 honest checkout URLs beside one refused are all recorded', async () => {
    const target = wallet('https://shop.io/ipn?order=checkouts');
    await new WalletRepository(db.pool).createOrGetMany([target]);
    const payments = new PaymentRepository(db.pool);
    const ids = Array.from({ length: 41 }, () => randomUUID());
    await payments.insertManyForWallets(
      ids.map((id) => ({
        id,
        polygonAddress: target.polygonAddress,
        amount: '49.99',
        currency: 'USD',
        provider: 'moonpay',
        email: 'jane@shop.io',
        keyHash: randomBytes(32),
        expectation: sampleExpectation(),
      })),
      100,
    );
    const record = createBatcher((batch: RecordedCheckout[]) => payments.recordCheckouts(batch), together);
    const results = await Promise.allSettled(
      ids.map((id, i) =>
        record({
          id,
          checkoutUrl: i === 7 ? 'https://checkout.example/\u0000' : `https://checkout.example/${i}`,
          providerReference: `ref-${i}`,
        }),
      ),
    );
    expect(results[7]).toMatchObject({ status: 'rejected', reason: { code: '22021' } });
    expect(results.filter((r) => r.status === 'fulfilled' && r.value === true)).toHaveLength(40);
    const { rows } = await db.pool.query(
      `SELECT status, count(*)::int AS n FROM payments WHERE id = ANY($1::uuid[]) GROUP BY status ORDER BY status`,
      [ids],
    );
    expect(rows).toEqual([
      { status: 'creating', n: 1 },
      { status: 'redirected', n: 40 },
    ]);
  });

  describe('the callback-worker', () => {
    let deliveries: CallbackDeliveryRepository;
    let walletId: string;

    const newDelivery = async (): Promise<string> => {
      const id = randomUUID();
      await db.pool.query(
        `INSERT INTO callback_deliveries (id, wallet_id, value_coin, value_forwarded_coin, fee_coin, txid_in, txid_out, next_attempt_at)
         VALUES ($1, $2, 10, 9, 1, '0xin', '0xout', now())`,
        [id, walletId],
      );
      return id;
    };

    beforeAll(async () => {
      const target = wallet('https://shop.io/ipn?order=callbacks');
      await new WalletRepository(db.pool).createOrGetMany([target]);
      const { rows } = await db.pool.query<{ id: string }>('SELECT id::text FROM wallets WHERE polygon_address = $1', [
        target.polygonAddress,
      ]);
      walletId = rows[0]!.id;
      deliveries = new CallbackDeliveryRepository(db.pool);
    });

    it('claims: 20 due deliveries beside an id PostgreSQL refuses are all claimed', async () => {
      // As callback-processor.ts batches its claims.
      const claim = createBatcher(async (ids: string[]) => {
        const claimed = new Map((await deliveries.claimDue(ids, 30_000)).map((row) => [row.id, row]));
        return ids.map((id) => claimed.get(id));
      }, together);
      const ids = await Promise.all(Array.from({ length: 20 }, newDelivery));
      const asked = [...ids.slice(0, 10), 'not-a-uuid', ...ids.slice(10)];
      const results = await Promise.allSettled(asked.map(claim));
      expect(results[10]).toMatchObject({ status: 'rejected', reason: { code: '22P02' } });
      const claimed = results
        .filter((r) => r.status === 'fulfilled')
        .map((r) => (r as PromiseFulfilledResult<{ id: string } | undefined>).value?.id);
      expect(claimed.sort()).toEqual([...ids].sort());
    });

    it('records: 20 attempt records beside one PostgreSQL refuses are all written', async () => {
      const record = createBatcher(async (records: CallbackAttemptRecord[]) => {
        await deliveries.recordAttempts(records);
        return records.map(() => undefined);
      }, together);
      const ids = await Promise.all(Array.from({ length: 21 }, newDelivery));
      await deliveries.claimDue(ids, 30_000);
      const attempts = ids.map(
        (deliveryId, i): CallbackAttemptRecord => ({
          deliveryId,
          attemptNo: 1,
          startedAt: new Date(),
          durationMs: 5,
          statusCode: 200,
          // A value PostgreSQL refuses (out of range for int).
          ...(i === 3 ? { attemptNo: 2 ** 31 } : {}),
          responseExcerpt: 'ok',
          outcome: { kind: 'delivered' },
        }),
      );
      const results = await Promise.allSettled(attempts.map(record));
      expect(results[3]).toMatchObject({ status: 'rejected', reason: { code: '22003' } });
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(20);
      const { rows } = await db.pool.query(
        `SELECT count(*)::int AS n FROM callback_deliveries WHERE id = ANY($1::uuid[]) AND status = 'delivered'`,
        [ids],
      );
      expect(rows[0].n).toBe(20);
    });
  });
});
