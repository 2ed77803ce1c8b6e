import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { getAddress } from 'viem';
import { seedDeposit, seedPayment, seedPayout, seedWallet } from '@gateway/app-testkit';
import { parseCsvObjects } from '@gateway/testkit';
import { walletControlFixture } from '../support/wallet-control-fixture';

// GET /admin/ledger: the merchant's ledger behind the admin token, streamed, refusing bad input by name.

const ADMIN_TOKEN = randomBytes(32).toString('base64url');
const fixture = walletControlFixture('wc_ledger');
let app: FastifyInstance;
const payout = `0x${randomBytes(20).toString('hex')}`;
const ORDERS = 1_203;

function ledger(query: string, token: string | null = ADMIN_TOKEN) {
  return app.inject({ method: 'GET', url: `/admin/ledger?${query}`, headers: token === null ? {} : { authorization: `Bearer ${token}` } });
}

beforeAll(async () => {
  app = await fixture.build(fixture.config({ ADMIN_TOKEN }));
  const pool = fixture.db.pool;
  // Enough orders for several batches of the cursor, one of them paid out.
  await pool.query(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token, created_at)
     SELECT 10000 + i, '0x' || lpad(to_hex(i), 40, '0'), 'sealed', $1, 'https://shop.example/ipn?order=' || i,
            sha256(convert_to($1 || i, 'UTF8')), 'tok' || i || $1, '2026-11-01T00:00:00Z'::timestamptz + i * interval '1 minute'
     FROM generate_series(1, $2) AS i`,
    [payout, ORDERS],
  );
  const wallet = await seedWallet(pool, { payoutAddress: payout, createdAt: new Date('2026-11-20T00:00:00Z') });
  await seedPayment(pool, { walletId: wallet.id, amount: '25.00', providerReference: 'sb-991', checkoutUrl: 'https://sandbox.example/c' });
  const { id: depositId, txHash } = await seedDeposit(pool, { walletId: wallet.id, amount: 25_000_000n, status: 'forwarded' });
  const merchant = await seedPayout(pool, { depositId, leg: 'merchant', toAddress: payout, amount: 24_750_000n, status: 'confirmed' });
  Object.assign(paid, { walletId: wallet.id, txHash, merchantTx: merchant.txHash });
});

const paid = { walletId: '', txHash: '', merchantTx: '' as string | null };

describe('GET /admin/ledger', () => {
  it('answers 401 without the admin token, or with another', async () => {
    for (const token of [null, 'MADEUPFORTESTS']) {
      const response = await ledger(`payout_address=${payout}&from=2026-11-01&to=2026-12-01`, token);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ status: 'error', code: 'unauthorized' });
    }
  });

  it('streams the CSV of every order in the range as an attachment, one row each', async () => {
    const response = await ledger(`payout_address=${getAddress(payout)}&from=2026-11-01&to=2026-12-01`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="ledger-${payout}-20261101T000000Z-20261201T000000Z.csv"`);
    expect(response.headers['transfer-encoding']).toBe('chunked');
    const rows = parseCsvObjects(response.body);
    expect(rows).toHaveLength(ORDERS + 1);
    expect(rows.at(-1)).toMatchObject({
      order_id: paid.walletId,
      provider_reference: 'sb-991',
      fiat_amount: '25.00',
      deposit_tx_hashes: paid.txHash,
      merchant_paid_usdc: '24.750000',
      merchant_payout_tx_hashes: paid.merchantTx,
    });
  });

  it('answers JSON Lines for format=json, within the range only', async () => {
    const response = await ledger(`payout_address=${payout}&from=2026-11-19T00:00:00Z&to=2026-11-21&format=json`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const lines = response.body
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toMatchObject([{ order_id: paid.walletId, payouts: [{ leg: 'merchant', amount_usdc: '24.750000' }] }]);
  });

  it.each([
    ['no payout address', 400, 'missing_parameter', 'payout_address', 'from=2026-11-01&to=2026-12-01'],
    ['a malformed address', 400, 'invalid_parameter', 'payout_address', 'payout_address=0x12&from=2026-11-01&to=2026-12-01'],
    ['an unparsable from', 400, 'invalid_parameter', 'from', `payout_address=${payout}&from=yesterday&to=2026-12-01`],
    ['from after to', 400, 'invalid_parameter', 'to', `payout_address=${payout}&from=2026-12-01&to=2026-11-01`],
    ['a range over 366 days', 400, 'invalid_parameter', 'to', `payout_address=${payout}&from=2026-01-01&to=2027-06-01`],
    ['another format', 400, 'invalid_parameter', 'format', `payout_address=${payout}&from=2026-11-01&to=2026-12-01&format=xml`],
    ['an unknown payout address', 404, 'not_found', 'payout_address', `payout_address=0x${'ab'.repeat(20)}&from=2026-11-01&to=2026-12-01`],
  ])('refuses %s with %i %s naming %s', async (_what, status, code, param, query) => {
    const response = await ledger(query);
    expect(response.statusCode).toBe(status);
    expect(response.json()).toMatchObject({ status: 'error', code, param, error: expect.any(String) });
  });
});
