import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { orderStanding, parseLedgerQuery } from '@gateway/domain';
import { parseCsv, parseCsvObjects } from '@gateway/testkit';
import { LEDGER_CSV_COLUMNS, ledgerExport, csvField } from '../src/ledger-export';
import { LedgerRepository, ledgerTime, type LedgerOrder } from '../src/repositories/ledger-repository';
import { readOrderFacts } from '../src/repositories/order-facts';
import { createPool } from '../src/pool';
import { createTestDatabase, type TestDatabase } from './support/test-database';

// The ledger reads many orders in one streamed statement; readOrderFacts reads one wallet's. Both
// must hand order-state.ts the same facts, so every reader tells an order's state alike: orders
// seeded to take each path of the rule (awaiting, paid, underpaid, overpaid by the merchant's own
// tolerance, late, no expectation, deposits not counted) are read both ways and compared.

let db: TestDatabase;
let ledger: LedgerRepository;
const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;
const PAYOUT = hex(20);
const at = (day: number, hour = 12) => new Date(Date.UTC(2026, 10, day, hour));
const NASTY_REFERENCE = '=HYPERLINK("https://evil.example"),\r\n"x"';

let hdIndex = 0;
async function wallet(createdAt: Date, options: { payout?: string; toleranceBps?: number; affiliateBps?: number } = {}): Promise<string> {
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token, created_at,
                          order_tolerance_bps, affiliate_address, affiliate_fee_bps)
     VALUES ($1, $2, 'sealed', $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id::text AS id`,
    [
      hdIndex++,
      hex(20),
      options.payout ?? PAYOUT,
      `https://shop.example/ipn?order=${hdIndex},"a"`,
      randomBytes(32),
      randomUUID(),
      createdAt,
      options.toleranceBps ?? null,
      options.affiliateBps === undefined ? null : hex(20),
      options.affiliateBps ?? null,
    ],
  );
  return rows[0]!.id;
}

interface Expectation {
  usdc: bigint;
  toleranceBps?: number;
  windowEndsAt?: Date;
}

async function attempt(walletId: string, createdAt: Date, expectation?: Expectation, reference: string | null = null): Promise<string> {
  const id = randomUUID();
  await db.pool.query(
    `INSERT INTO payments (id, wallet_id, amount, currency, provider, email, checkout_url, created_at, provider_reference, provider_status,
                           amount_usd, usd_rate, usd_rate_source, usd_rate_as_of, expected_usdc, expected_basis, tolerance_bps, window_ends_at)
     VALUES ($1, $2, '23.50', 'EUR', 'moonpay', 'buyer@example.com', 'https://sandbox.example/c', $3, $4, 'paid',
             $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      id,
      walletId,
      createdAt,
      reference,
      expectation ? '25.55' : null,
      expectation ? '0.92' : null,
      expectation ? 'file' : null,
      expectation ? createdAt : null,
      expectation?.usdc.toString() ?? null,
      expectation ? 'quote' : null,
      expectation ? (expectation.toleranceBps ?? 100) : null,
      expectation ? (expectation.windowEndsAt ?? at(30)) : null,
    ],
  );
  return id;
}

let blockNumber = 100;
async function deposit(walletId: string, amount: bigint, status: string, seenAt: Date): Promise<{ id: string; txHash: string }> {
  const txHash = hex(32);
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO deposits (chain_id, tx_hash, log_index, block_number, block_hash, block_time, wallet_id, from_address, amount, status,
                           seen_at, final_at)
     VALUES (137, $1, 0, $2, $3, $4, $5, $6, $7, $8, $4, CASE WHEN $8 IN ('seen', 'orphaned') THEN NULL ELSE $4::timestamptz END)
     RETURNING id::text AS id`,
    [txHash, blockNumber++, hex(32), seenAt, walletId, hex(20), amount.toString(), status],
  );
  return { id: rows[0]!.id, txHash };
}

async function leg(depositId: string, kind: string, amount: bigint, status = 'confirmed'): Promise<string | null> {
  const txHash = status === 'confirmed' ? hex(32) : null;
  await db.pool.query(
    `INSERT INTO payouts (deposit_id, leg, from_address, to_address, amount, authorization_nonce, valid_before, status, tx_hash,
                          confirmed_at, cancelled_at)
     VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $8, CASE WHEN $7 = 'confirmed' THEN now() END, CASE WHEN $7 = 'cancelled' THEN now() END)`,
    [depositId, kind, hex(20), hex(20), amount.toString(), hex(32), status, txHash],
  );
  return txHash;
}

async function callback(walletId: string, depositId: string, answers: Array<[Date, number | null]>): Promise<string> {
  const id = randomUUID();
  await db.pool.query(
    `INSERT INTO callback_deliveries (id, wallet_id, deposit_id, value_coin, value_forwarded_coin, fee_coin, txid_in, txid_out, status)
     VALUES ($1, $2, $3, 1, 1, 0, $4, $5, 'delivered')`,
    [id, walletId, depositId, hex(32), hex(32)],
  );
  for (const [index, [startedAt, statusCode]] of answers.entries()) {
    await db.pool.query(
      `INSERT INTO callback_attempts (delivery_id, attempt_no, started_at, duration_ms, status_code) VALUES ($1, $2, $3, 250, $4)`,
      [id, index + 1, startedAt, statusCode],
    );
  }
  return id;
}

const ids: Record<string, string> = {};
const txs: Record<string, string | null> = {};
let acceptedDelivery: string;

beforeAll(async () => {
  db = await createTestDatabase('ledger');
  ledger = new LedgerRepository(db.pool);
  // Outside the range: before it, at its end (excluded), another merchant's.
  ids.before = await wallet(new Date(at(1, 0).getTime() - 1));
  ids.atEnd = await wallet(at(30, 0));
  ids.stranger = await wallet(at(5), { payout: hex(20) });
  // At the range's start (included): never tried.
  ids.untried = await wallet(at(1, 0));
  ids.paid = await wallet(at(2));
  await attempt(ids.paid, at(2), { usdc: 25_000_000n }, NASTY_REFERENCE);
  const paidDeposit = await deposit(ids.paid, 25_000_000n, 'forwarded', at(2, 13));
  txs.paidDeposit = paidDeposit.txHash;
  txs.paidMerchant = await leg(paidDeposit.id, 'merchant', 24_750_000n);
  txs.paidPlatform = await leg(paidDeposit.id, 'platform', 250_000n);
  await leg(paidDeposit.id, 'merchant', 24_750_000n, 'cancelled');
  acceptedDelivery = await callback(ids.paid, paidDeposit.id, [
    [at(2, 14), 500],
    [at(2, 15), 204],
    [at(2, 16), 200],
  ]);
  // Two attempts: judged by the latest with an expectation; an orphaned and an unfinal deposit are not counted.
  ids.underpaid = await wallet(at(3));
  await attempt(ids.underpaid, at(3), { usdc: 30_000_000n });
  await attempt(ids.underpaid, at(3, 13), { usdc: 20_000_000n });
  await attempt(ids.underpaid, at(3, 14));
  await deposit(ids.underpaid, 10_000_000n, 'final', at(3, 15));
  await deposit(ids.underpaid, 9_000_000n, 'orphaned', at(3, 15));
  await deposit(ids.underpaid, 9_000_000n, 'seen', at(3, 16));
  // The window closed before the second deposit.
  ids.late = await wallet(at(4));
  await attempt(ids.late, at(4), { usdc: 10_000_000n, windowEndsAt: at(5) });
  await deposit(ids.late, 5_000_000n, 'final', at(4, 13));
  await deposit(ids.late, 6_000_000n, 'held', at(6));
  // Within the attempt's 1 % but over the merchant's own 0.
  ids.overpaid = await wallet(at(6), { toleranceBps: 0 });
  await attempt(ids.overpaid, at(6), { usdc: 10_000_000n });
  await deposit(ids.overpaid, 10_050_000n, 'final', at(6, 13));
  // No expectation recorded: what arrived, judged by nothing.
  ids.unjudged = await wallet(at(7), { affiliateBps: 50 });
  await attempt(ids.unjudged, at(7));
  const unjudgedDeposit = await deposit(ids.unjudged, 7_000_000n, 'forwarded', at(7, 13));
  await leg(unjudgedDeposit.id, 'merchant', 6_895_000n);
  await leg(unjudgedDeposit.id, 'platform', 70_000n);
  await leg(unjudgedDeposit.id, 'affiliate', 35_000n, 'broadcast');
  ids.awaiting = await wallet(at(8), { affiliateBps: 50 });
  await attempt(ids.awaiting, at(8), { usdc: 25_000_001n });
});
afterAll(() => db.drop());

const range = { payoutAddress: PAYOUT, from: at(1, 0), to: at(30, 0) };

async function readAll(batchOrders?: number): Promise<LedgerOrder[]> {
  const orders: LedgerOrder[] = [];
  for await (const batch of ledger.orders(range, batchOrders)) orders.push(...batch);
  return orders;
}

async function exported(format: 'csv' | 'json'): Promise<string> {
  const query = parseLedgerQuery({ payout_address: PAYOUT, from: range.from.toISOString(), to: range.to.toISOString(), format });
  let text = '';
  for await (const chunk of ledgerExport(ledger, query)) text += chunk;
  return text;
}

describe('LedgerRepository', () => {
  it('reads the orders of the payout address created in [from, to), oldest first', async () => {
    expect((await readAll()).map((order) => order.walletId)).toEqual(
      ['untried', 'paid', 'underpaid', 'late', 'overpaid', 'unjudged', 'awaiting'].map((name) => ids[name]),
    );
  });

  it('gives each order the facts readOrderFacts gives its wallet, so orderStanding judges both alike', async () => {
    const orders = await readAll();
    for (const order of orders) {
      const one = await readOrderFacts(db.pool, order.walletId);
      expect({ wallet: order.walletId, facts: order.facts }).toEqual({ wallet: order.walletId, facts: one });
      expect(orderStanding(order.facts)).toEqual(orderStanding(one!));
    }
    const states = orders.map((order) => orderStanding(order.facts).judged?.state ?? null);
    expect(states).toEqual([null, 'paid', 'underpaid', 'late', 'overpaid', null, 'awaiting']);
  });

  it('reads the same orders whatever the batch, across batch boundaries', async () => {
    const whole = await readAll();
    expect(await readAll(2)).toEqual(whole);
    expect(await readAll(7)).toEqual(whole);
    expect(await readAll(1)).toEqual(whole);
  });

  it('gives its connection back, with no transaction left open, when the reader stops part-way', async () => {
    const one = createPool({ connectionString: db.connectionString, schema: db.schema, max: 1 });
    try {
      const partial = new LedgerRepository(one);
      for await (const batch of partial.orders(range, 2)) {
        expect(batch).toHaveLength(2);
        break;
      }
      // The only connection is free again, and not inside the export's transaction.
      const { rows } = await one.query<{ open: boolean }>('SELECT now() = statement_timestamp() AS open');
      expect(rows).toEqual([{ open: true }]);
      expect(await partial.knowsPayoutAddress(PAYOUT)).toBe(true);
    } finally {
      await one.end();
    }
  });

  it('knows a payout address by any of its wallets, whatever their time', async () => {
    expect(await ledger.knowsPayoutAddress(PAYOUT)).toBe(true);
    expect(await ledger.knowsPayoutAddress(hex(20))).toBe(false);
  });
});

describe('the export', () => {
  it('writes a CSV an accountant reads back: a header, one row per order, exact amounts, lists, the first accepted callback', async () => {
    const text = await exported('csv');
    expect(parseCsv(text)[0]).toEqual(LEDGER_CSV_COLUMNS.map(([name]) => name));
    const rows = parseCsvObjects(text);
    expect(rows.map((row) => row.order_id)).toEqual(
      ['untried', 'paid', 'underpaid', 'late', 'overpaid', 'unjudged', 'awaiting'].map((name) => ids[name]),
    );
    const byId = new Map(rows.map((row) => [row.order_id, row]));
    expect(byId.get(ids.paid!)).toMatchObject({
      order_created_at: '2026-11-02T12:00:00.000Z',
      payout_address: PAYOUT,
      callback_url: expect.stringMatching(/^https:\/\/shop\.example\/ipn\?order=\d+,"a"$/),
      provider: 'moonpay',
      provider_reference: `'${NASTY_REFERENCE}`,
      provider_status: 'paid',
      fiat_amount: '23.50',
      fiat_currency: 'EUR',
      amount_usd: '25.55',
      usd_rate: '0.92',
      usd_rate_source: 'file',
      attempts: '1',
      state: 'paid',
      expected_usdc: '25.000000',
      expected_basis: 'quote',
      tolerance_bps: '100',
      total_usdc: '25.000000',
      missing_usdc: '0.000000',
      excess_usdc: '0.000000',
      late_usdc: '0.000000',
      expected_merchant_usdc: '24.750000',
      expected_platform_usdc: '0.250000',
      expected_affiliate_usdc: '0.000000',
      deposits: '1',
      deposit_tx_hashes: txs.paidDeposit,
      deposit_block_times: '2026-11-02T13:00:00.000Z',
      deposit_amounts_usdc: '25.000000',
      merchant_paid_usdc: '24.750000',
      platform_paid_usdc: '0.250000',
      affiliate_paid_usdc: '0.000000',
      merchant_payout_tx_hashes: txs.paidMerchant,
      platform_payout_tx_hashes: txs.paidPlatform,
      affiliate_payout_tx_hashes: '',
      unconfirmed_payout_legs: '0',
      first_callback_accepted_at: '2026-11-02T15:00:00.250Z',
      first_callback_delivery_id: acceptedDelivery,
    });
    // Judged by the latest attempt with an expectation (not the later one without); only final deposits listed.
    expect(byId.get(ids.underpaid!)).toMatchObject({ attempts: '3', expected_usdc: '20.000000', missing_usdc: '10.000000', deposits: '1' });
    expect(byId.get(ids.late!)).toMatchObject({ state: 'late', late_usdc: '6.000000', total_usdc: '11.000000', deposits: '2' });
    expect(byId.get(ids.overpaid!)).toMatchObject({ state: 'overpaid', tolerance_bps: '0', excess_usdc: '0.050000' });
    expect(byId.get(ids.unjudged!)).toMatchObject({
      state: '',
      expected_usdc: '',
      total_usdc: '7.000000',
      merchant_paid_usdc: '6.895000',
      affiliate_paid_usdc: '0.000000',
      unconfirmed_payout_legs: '1',
    });
    expect(byId.get(ids.awaiting!)).toMatchObject({
      state: 'awaiting',
      missing_usdc: '25.000001',
      expected_merchant_usdc: '24.625001',
      expected_platform_usdc: '0.250000',
      expected_affiliate_usdc: '0.125000',
    });
    expect(byId.get(ids.untried!)).toMatchObject({ payment_id: '', attempts: '0', total_usdc: '0.000000', first_callback_accepted_at: '' });
  });

  it('writes a JSON line per order with the lists nested, cancelled legs left out', async () => {
    const lines = (await exported('json')).split('\n');
    expect(lines.pop()).toBe('');
    const entries = lines.map((line) => JSON.parse(line));
    const paid = entries.find((entry) => entry.order_id === ids.paid);
    expect(paid).toMatchObject({
      state: 'paid',
      payment: { provider_reference: NASTY_REFERENCE, fiat_amount: '23.50' },
      deposits: [
        { tx_hash: txs.paidDeposit, amount_usdc: '25.000000', status: 'forwarded', counted: true, block_time: '2026-11-02T13:00:00.000Z' },
      ],
      payouts: [
        { leg: 'merchant', amount_usdc: '24.750000', status: 'confirmed', tx_hash: txs.paidMerchant, deposit_tx_hash: txs.paidDeposit },
        { leg: 'platform', amount_usdc: '0.250000', status: 'confirmed', tx_hash: txs.paidPlatform },
      ],
      first_accepted_callback: { delivery_id: acceptedDelivery, accepted_at: '2026-11-02T15:00:00.250Z' },
    });
    const underpaid = entries.find((entry) => entry.order_id === ids.underpaid);
    expect(underpaid.deposits.map((d: { status: string; counted: boolean }) => [d.status, d.counted])).toEqual([
      ['final', true],
      ['orphaned', false],
      ['seen', false],
    ]);
  });

  it('writes the header alone for a range without orders', async () => {
    const query = parseLedgerQuery({ payout_address: PAYOUT, from: '2027-01-01', to: '2027-02-01' });
    let text = '';
    for await (const chunk of ledgerExport(ledger, query)) text += chunk;
    expect(parseCsv(text)).toEqual([LEDGER_CSV_COLUMNS.map(([name]) => name)]);
  });

  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\r\nlines', '"two\r\nlines"'],
    ['=1+1', "'=1+1"],
    ['-2', "'-2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['+1,2', `"'+1,2"`],
  ])('writes the field %j as %j', (value, field) => {
    expect(csvField(value)).toBe(field);
  });

  it('docs/ledger.md describes every CSV column, in order', () => {
    const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'ledger.md'), 'utf8');
    const documented = [...doc.matchAll(/^\| `([a-z_]+)` \|/gm)].map((match) => match[1]);
    expect(documented).toEqual(LEDGER_CSV_COLUMNS.map(([name]) => name));
  });
});

describe('ledgerTime', () => {
  it("writes PostgreSQL's UTC text as toISOString writes the Date pg reads: to the millisecond, microseconds truncated", async () => {
    const moments = [
      '2026-11-01 00:05:00+00',
      '2026-11-01 00:05:00.5+00',
      '2026-11-01 00:05:00.05+00',
      '2026-02-28 23:59:59.999999+00',
      '2026-11-01 13:00:00.123456+05:30',
      '1999-12-31 23:59:59.000001+00',
    ];
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      // As the export's transaction sets it.
      await client.query("SET LOCAL TimeZone = 'UTC'");
      for (const moment of moments) {
        const { rows } = await client.query<{ json: string; text: string; read: Date }>(
          'SELECT json_build_array($1::timestamptz)->>0 AS json, $1::timestamptz::text AS text, $1::timestamptz AS read',
          [moment],
        );
        const { json, text, read } = rows[0]!;
        expect([ledgerTime(json), ledgerTime(text)]).toEqual([read.toISOString(), read.toISOString()]);
      }
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
