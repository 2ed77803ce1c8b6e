import { randomBytes, randomUUID } from 'node:crypto';
import type { ProviderPaymentStatus } from '@gateway/domain';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { PaymentRepository } from '../src/repositories/payment-repository';
import { ProviderStatusRepository, type ProviderStatusUpdate } from '../src/repositories/provider-status-repository';
import { WalletRepository } from '../src/repositories/wallet-repository';
import { sampleExpectation } from './support/payment-expectation';

// A property test of the one place provider data enters the database (recordProviderStatus), on
// the real schema and as payment-redirect's role: whatever strings (or other values) a signed
// webhook carries, the writer answers with one of its outcomes, never an error, and stores only
// plain text within its columns. A seeded generator (no fast-check in this repository): the seed is
// in every failure message, and PROVIDER_WRITER_SEED replays one run.

const SEED = Number(process.env.PROVIDER_WRITER_SEED ?? 2_026_112_5);
const CASES = 400;
const LIMITS = { identifier: 200, rawStatus: 100, reason: 200 };
const STATUSES: ProviderPaymentStatus[] = ['pending', 'charged', 'paid', 'declined', 'failed'];
// biome-ignore lint/suspicious/noControlCharactersInRegex: the property is about control characters.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** mulberry32: small, seeded, good enough to pick test cases. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (below: number) => Math.floor(next() * below);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { int, pick };
}
type Random = ReturnType<typeof generator>;

const HOSTILE_PIECES = [
  '\u0000',
  '\u0000\u0000\u0000',
  '\u0001',
  '\u0007',
  '\t',
  '\n',
  '\r\n',
  '\u001b[31m',
  '\u007f',
  '\u0085',
  '\u009f',
  '\ud800',
  '\udfff',
  '😀',
  '\u202e',
  '\ufeff',
  "'; DROP TABLE payments; --",
  '%00',
  '\\u0000',
  'é',
  ' ',
];

/** A string a hostile provider could send: pieces of the above, printable text, sometimes huge. */
function hostileString(random: Random, around = ''): string {
  const parts: string[] = [];
  const count = random.int(6);
  for (let i = 0; i < count; i += 1) {
    const kind = random.int(4);
    if (kind === 0) parts.push(random.pick(HOSTILE_PIECES));
    else if (kind === 1) parts.push(randomBytes(1 + random.int(12)).toString('hex'));
    else if (kind === 2) parts.push(random.pick(HOSTILE_PIECES).repeat(1 + random.int(400)));
    else parts.push(around);
  }
  if (random.int(10) === 0) parts.push('x'.repeat(1_000 + random.int(100_000)));
  const text = parts.join('');
  return random.int(3) === 0 && around !== '' ? `${around.slice(0, random.int(around.length))}${text}` : text;
}

/** Any value where a string belongs: mostly strings, sometimes the wrong type or nothing. */
function hostileValue(random: Random, around = ''): unknown {
  switch (random.int(10)) {
    case 0:
      return undefined;
    case 1:
      return random.pick<unknown>([null, 0, 12_345, -1.5, true, false, {}, [], ['a'], { toString: 'x' }]);
    case 2:
      return around;
    default:
      return hostileString(random, around);
  }
}

let db: TestDatabase;
const polygonAddress = `0x${'5'.repeat(40)}`;

beforeAll(async () => {
  db = await createTestDatabase('provider_status_writer');
  await new WalletRepository(db.pool).createOrGetMany([
    {
      hdIndex: 1n,
      keyFingerprint: 'a1b2c3d4',
      platformFeeBps: 100,
      polygonAddress,
      addressIn: 'k1.x',
      payoutAddress: '0x52908400098527886e0f7030069857d2e4169ee7',
      callbackUrl: 'https://shop.io/ipn?o=1',
      dedupeKey: randomBytes(32),
      ipnToken: randomBytes(24).toString('base64url'),
    },
  ]);
});
afterAll(() => db.drop());

describe('the provider status writer, over hostile input (seeded)', () => {
  it(`answers every one of ${CASES} generated webhooks with an outcome and stores only plain text within its columns`, async () => {
    const random = generator(SEED);
    const pool = db.appPool('payment-redirect');
    const payments = new PaymentRepository(pool);
    const statuses = new ProviderStatusRepository(pool);
    const outcomes = new Map<string, number>();
    for (let n = 0; n < CASES; n += 1) {
      const id = randomUUID();
      const reference = `mp_${randomBytes(6).toString('hex')}`;
      await payments.insertManyForWallets(
        [
          {
            id,
            polygonAddress,
            amount: '25.00',
            currency: 'USD',
            provider: 'moonpay',
            email: 'a@b.io',
            keyHash: randomBytes(32),
            expectation: sampleExpectation(),
          },
        ],
        1000,
      );
      await payments.recordCheckouts([{ id, checkoutUrl: 'https://buy.moonpay.com/?x=1', providerReference: reference }]);
      // Some payments are paid already: a late webhook leaves them as they are.
      if (random.int(3) === 0) await db.pool.query(`UPDATE payments SET provider_status = 'paid' WHERE id = $1`, [id]);
      const update = {
        providers: ['moonpay'],
        match: {
          paymentId: hostileValue(random, id),
          providerReference: hostileValue(random, reference),
          walletAddress: hostileValue(random, polygonAddress),
        },
        status: random.pick(STATUSES),
        rawStatus: hostileValue(random, 'completed'),
        providerReference: hostileValue(random, reference),
        reason: hostileValue(random, 'Card declined'),
      } as unknown as ProviderStatusUpdate;
      const context = `seed ${SEED}, case ${n}`;
      let outcome: string;
      try {
        outcome = await statuses.recordProviderStatus(update);
      } catch (error) {
        throw new Error(`${context}: recordProviderStatus threw ${(error as Error).message}`);
      }
      expect({ context, outcome }).toEqual({ context, outcome: expect.stringMatching(/^(updated|unchanged|unknown_payment)$/) });
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      // Our own id and the order's own reference (pinned at its checkout), sent as is, always find the payment.
      if (update.match.paymentId === id && update.providerReference === reference)
        expect({ context, outcome }).not.toEqual({ context, outcome: 'unknown_payment' });
      const { rows } = await db.pool.query(
        `SELECT provider_raw_status, provider_reference, provider_reason FROM payments WHERE provider_updated_at IS NOT NULL`,
      );
      for (const row of rows) {
        for (const [column, limit] of [
          ['provider_raw_status', LIMITS.rawStatus],
          ['provider_reference', LIMITS.identifier],
          ['provider_reason', LIMITS.reason],
        ] as const) {
          const value: string | null = row[column];
          if (value === null) continue;
          expect({ context, column, control: CONTROL.test(value), fits: value.length <= limit, empty: value === '' }).toEqual({
            context,
            column,
            control: false,
            fits: true,
            empty: false,
          });
        }
      }
      // Found by our own id and moved: a clean reason is kept exactly as the provider wrote it.
      if (outcome === 'updated' && update.match.paymentId === id && update.reason === 'Card declined') {
        const { rows: mine } = await db.pool.query('SELECT provider_reason FROM payments WHERE id = $1', [id]);
        expect({ context, reason: mine[0].provider_reason }).toEqual({ context, reason: 'Card declined' });
      }
    }
    // The generator reaches every outcome (a property test whose cases all miss proves nothing).
    expect([...outcomes.keys()].sort()).toEqual(['unchanged', 'unknown_payment', 'updated']);
  });
});
