import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createTestRedis } from '@gateway/testkit';
import {
  seedDelivery,
  seedDeposit,
  seedPayment,
  seedPayout,
  seedWallet,
  sqlExpression,
  type PaymentExpectationSeed,
  type PaymentSeed,
} from '@gateway/app-testkit';
import { walletControlFixture } from '../support/wallet-control-fixture';

const payout = '0x52908400098527886E0F7030069857D2E4169EE7';
const EMAIL = 'jane.doe@shop.io';

// Status has a tighter limit of its own; only the test of that limit wants it.
const fixture = walletControlFixture('status', { STATUS_RATE_LIMIT_MAX: '100000' });
let app: FastifyInstance;

interface Wallet {
  id: string;
  ipnToken: string;
  polygonAddress: string;
  callback: string;
}

let order = 0;
async function newWallet(): Promise<Wallet> {
  const callback = `https://shop.io/ipn?order_id=status-${++order}`;
  const response = await app.inject({ url: '/control/wallet.php', query: { address: payout, callback } });
  expect(response.statusCode).toBe(200);
  const body = response.json();
  const { rows } = await fixture.db.pool.query<{ id: string }>('SELECT id::text FROM wallets WHERE ipn_token = $1', [body.ipn_token]);
  return { id: rows[0]!.id, ipnToken: body.ipn_token, polygonAddress: body.polygon_address_in, callback };
}

// USDC_TOKEN_ADDRESS's default (native USDC on Polygon PoS), and the other Polygon USDC.
const NATIVE_USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const USDC_E = '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174';

let logIndex = 0;
async function addDeposit(
  wallet: Wallet,
  status: string,
  amount: bigint,
  seenAt: string,
  token: string = NATIVE_USDC,
): Promise<{ id: string; txHash: string }> {
  return seedDeposit(fixture.db.pool, {
    logIndex: ++logIndex,
    blockNumber: 100,
    walletId: wallet.id,
    fromAddress: '0x0000000000000000000000000000000000000001',
    amount,
    status,
    seenAt,
    token,
  });
}

/** Marks a deposit forwarded as settlement does: merchant leg confirmed and the callback delivery, in one go. */
async function forward(
  wallet: Wallet,
  deposit: { id: string; txHash: string },
  amounts: { value: bigint; forwarded: bigint; fee: bigint },
  forwardedAt: string,
): Promise<string> {
  await fixture.db.pool.query(`UPDATE deposits SET status = 'forwarded', forwarded_at = $2 WHERE id = $1`, [deposit.id, forwardedAt]);
  const { txHash: txOut } = await seedPayout(fixture.db.pool, {
    depositId: deposit.id,
    fromAddress: wallet.polygonAddress,
    toAddress: payout,
    amount: amounts.forwarded,
    status: 'confirmed',
  });
  await seedDelivery(fixture.db.pool, {
    walletId: wallet.id,
    depositId: deposit.id,
    valueCoin: amounts.value,
    valueForwardedCoin: amounts.forwarded,
    feeCoin: amounts.fee,
    txidIn: deposit.txHash,
    txidOut: txOut!,
  });
  return txOut!;
}

async function addPayment(
  wallet: Wallet,
  fields: { provider: string; createdAt: string; status?: PaymentSeed['providerStatus']; reference?: string },
): Promise<string> {
  return seedPayment(fixture.db.pool, {
    walletId: wallet.id,
    amount: '49.99',
    provider: fields.provider,
    email: EMAIL,
    checkoutUrl: 'https://checkout.test/x',
    createdAt: fields.createdAt,
    providerStatus: fields.status ?? null,
    providerReference: fields.reference ?? null,
    providerUpdatedAt: fields.status === undefined ? null : sqlExpression('now()'),
  });
}

const status = (ipnToken: string, on = app, remoteAddress = '127.0.0.1') =>
  on.inject({ url: '/control/payment-status.php', query: { ipn_token: ipnToken }, remoteAddress });

beforeAll(async () => {
  app = await fixture.build();
});

describe('GET /control/payment-status.php', () => {
  it('a new wallet is unpaid, with nothing in it', async () => {
    const wallet = await newWallet();
    const response = await status(wallet.ipnToken);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      status: 'unpaid',
      value_coin: '0',
      value_forwarded_coin: '0',
      fee_coin: '0',
      txid_in: null,
      txid_out: null,
      coin: 'polygon_usdc',
      polygon_address_in: wallet.polygonAddress,
      payout_address: payout,
      callback_url: wallet.callback,
      deposits: [],
      deposit_count: 0,
      payments: [],
      callback_log: { delivery_count: 0, deliveries: [] },
      order: {
        total_coin: '0',
        expected_coin: null,
        expected_basis: null,
        state: null,
        missing_coin: null,
        excess_coin: null,
        late_coin: null,
        tolerance_bps: null,
        window_ends_at: null,
        judged_by: null,
        reason: expect.stringMatching(/^0 USDC arrived; no payment attempt on this wallet recorded what the order should bring/),
      },
    });
  });

  it('a forwarded deposit makes it paid, with its amounts and transactions, and the provider status', async () => {
    const wallet = await newWallet();
    const paymentId = await addPayment(wallet, {
      provider: 'moonpay',
      createdAt: '2025-01-01T10:00:00Z',
      status: 'paid',
      reference: 'mp_123',
    });
    const deposit = await addDeposit(wallet, 'forwarding', 49_240_150n, '2025-01-01T10:05:00Z');
    const txOut = await forward(wallet, deposit, { value: 49_240_150n, forwarded: 48_747_749n, fee: 492_401n }, '2025-01-01T10:06:00Z');

    const response = await status(wallet.ipnToken);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({
      status: 'paid',
      value_coin: '49.24015',
      value_forwarded_coin: '48.747749',
      fee_coin: '0.492401',
      txid_in: deposit.txHash,
      txid_out: txOut,
      coin: 'polygon_usdc',
      deposit_count: 1,
    });
    expect(body.deposits).toEqual([
      {
        status: 'forwarded',
        attention_reason: null,
        amount: '49.24015',

        coin: 'polygon_usdc',

        token_address: NATIVE_USDC,

        note: null,
        value_forwarded_coin: '48.747749',
        fee_coin: '0.492401',
        txid_in: deposit.txHash,
        txid_out: txOut,
        seen_at: '2025-01-01T10:05:00.000Z',
        forwarded_at: '2025-01-01T10:06:00.000Z',
        payment_id: paymentId,
        provider: 'moonpay',
      },
    ]);
    expect(body.payments).toEqual([
      {
        payment_id: paymentId,
        provider: 'moonpay',
        amount: '49.99',
        currency: 'USD',
        provider_status: 'paid',
        provider_reference: 'mp_123',
        created_at: '2025-01-01T10:00:00.000Z',
        provider_updated_at: expect.any(String),
      },
    ]);
    // Nothing about the customer.
    expect(response.body).not.toContain(EMAIL);
    expect(response.body).not.toContain('jane');
    expect(response.body).not.toContain('checkout.test');
  });

  it('a second chance: the deposit is credited to the attempt that paid, naming its provider', async () => {
    const wallet = await newWallet();
    const declined = await addPayment(wallet, { provider: 'moonpay', createdAt: '2025-01-02T10:00:00Z', status: 'declined' });
    const second = await addPayment(wallet, { provider: 'banxa', createdAt: '2025-01-02T10:04:00Z', status: 'paid' });
    const early = await addDeposit(wallet, 'orphaned', 1_000_000n, '2025-01-02T09:00:00Z');
    const paid = await addDeposit(wallet, 'seen', 49_240_150n, '2025-01-02T10:09:00Z');
    const body = (await status(wallet.ipnToken)).json();
    const credit = (txHash: string) => {
      const deposit = body.deposits.find((entry: { txid_in: string }) => entry.txid_in === txHash);
      return { payment_id: deposit.payment_id, provider: deposit.provider };
    };
    expect(credit(paid.txHash)).toEqual({ payment_id: second, provider: 'banxa' });
    // Before any payment of the wallet: no attempt is credited.
    expect(credit(early.txHash)).toEqual({ payment_id: null, provider: null });
    expect(body.payments.map((payment: { payment_id: string }) => payment.payment_id)).toEqual([second, declined]);
  });

  it('a deposit whose transaction a provider reported is credited to that payment, even an earlier one', async () => {
    const wallet = await newWallet();
    const first = await addPayment(wallet, { provider: 'moonpay', createdAt: '2025-01-03T10:00:00Z', status: 'paid' });
    await addPayment(wallet, { provider: 'banxa', createdAt: '2025-01-03T10:04:00Z', status: 'pending' });
    const deposit = await addDeposit(wallet, 'seen', 49_240_150n, '2025-01-03T10:09:00Z');
    await fixture.db.pool.query('UPDATE payments SET provider_tx_hash = $2 WHERE id = $1', [first, deposit.txHash]);
    const body = (await status(wallet.ipnToken)).json();
    expect(body.deposits[0]).toMatchObject({ txid_in: deposit.txHash, payment_id: first, provider: 'moonpay' });
  });

  it('several deposits: sums over the forwarded ones only, transactions of the latest forwarded, newest first', async () => {
    const wallet = await newWallet();
    await addPayment(wallet, { provider: 'moonpay', createdAt: '2025-02-01T09:00:00Z', status: 'declined', reference: 'mp_1' });
    const latestPayment = await addPayment(wallet, { provider: 'transak', createdAt: '2025-02-01T09:10:00Z' });
    const first = await addDeposit(wallet, 'final', 10_000_000n, '2025-02-01T09:20:00Z');
    const second = await addDeposit(wallet, 'final', 2_500_001n, '2025-02-01T09:21:00Z');
    const pending = await addDeposit(wallet, 'seen', 7_000_000n, '2025-02-01T09:22:00Z');
    const orphaned = await addDeposit(wallet, 'orphaned', 3_000_000n, '2025-02-01T09:23:00Z');
    // The older deposit is forwarded last: "latest" means the latest forwarded.
    await forward(wallet, second, { value: 2_500_001n, forwarded: 2_475_001n, fee: 25_000n }, '2025-02-01T09:30:00Z');
    const lastOut = await forward(wallet, first, { value: 10_000_000n, forwarded: 9_900_000n, fee: 100_000n }, '2025-02-01T09:31:00Z');

    const body = (await status(wallet.ipnToken)).json();
    expect(body).toMatchObject({
      status: 'paid',
      value_coin: '12.500001',
      value_forwarded_coin: '12.375001',
      fee_coin: '0.125',
      txid_in: first.txHash,
      txid_out: lastOut,
      deposit_count: 4,
    });
    expect(
      body.deposits.map((d: { txid_in: string; status: string; amount: string; value_forwarded_coin: string | null }) => [
        d.txid_in,
        d.status,
        d.amount,
        d.value_forwarded_coin,
      ]),
    ).toEqual([
      [orphaned.txHash, 'orphaned', '3', null],
      [pending.txHash, 'seen', '7', null],
      [second.txHash, 'forwarded', '2.500001', '2.475001'],
      [first.txHash, 'forwarded', '10', '9.9'],
    ]);
    expect(
      body.payments.map((p: { payment_id: string; provider: string; provider_status: string | null }) => [p.provider, p.provider_status]),
    ).toEqual([
      ['transak', null],
      ['moonpay', 'declined'],
    ]);
    expect(body.payments[0].payment_id).toBe(latestPayment);
  });

  it('a held deposit (below the dust threshold) is listed, and leaves the wallet unpaid', async () => {
    const wallet = await newWallet();
    const held = await addDeposit(wallet, 'held', 5_000n, '2025-03-01T12:00:00Z');
    const body = (await status(wallet.ipnToken)).json();
    expect(body).toMatchObject({ status: 'unpaid', value_coin: '0', txid_in: null, txid_out: null, deposit_count: 1 });
    expect(body.deposits).toEqual([
      {
        status: 'held',
        attention_reason: null,
        amount: '0.005',

        coin: 'polygon_usdc',

        token_address: NATIVE_USDC,

        note: null,
        value_forwarded_coin: null,
        fee_coin: null,
        txid_in: held.txHash,
        txid_out: null,
        seen_at: '2025-03-01T12:00:00.000Z',
        forwarded_at: null,
        payment_id: null,
        provider: null,
      },
    ]);
  });

  it('a deposit whose payout will not succeed is needs_attention with its reason, and leaves the wallet unpaid', async () => {
    const wallet = await newWallet();
    const parked = await addDeposit(wallet, 'forwarding', 10_000_000n, '2025-03-02T12:00:00Z');
    await fixture.db.pool.query(
      `UPDATE deposits SET status = 'needs_attention', attention_reason = 'payout_address_blacklisted',
                           attention_detail = 'Blacklistable: account is blacklisted', attention_at = now() WHERE id = $1`,
      [parked.id],
    );
    const body = (await status(wallet.ipnToken)).json();
    expect(body).toMatchObject({ status: 'unpaid', value_coin: '0', txid_in: null, txid_out: null, deposit_count: 1 });
    expect(body.deposits).toEqual([
      {
        status: 'needs_attention',
        attention_reason: 'payout_address_blacklisted',
        amount: '10',

        coin: 'polygon_usdc',

        token_address: NATIVE_USDC,

        note: null,
        value_forwarded_coin: null,
        fee_coin: null,
        txid_in: parked.txHash,
        txid_out: null,
        seen_at: '2025-03-02T12:00:00.000Z',
        forwarded_at: null,
        payment_id: null,
        provider: null,
      },
    ]);
    // The token's own words are for operators (replan --list), not the merchant's answer.
    expect(JSON.stringify(body)).not.toContain('Blacklistable');
  });

  it('a deposit in USDC.e is held for the operator: listed with its coin and a note, the wallet unpaid', async () => {
    const wallet = await newWallet();
    const paymentId = await addPayment(wallet, {
      provider: 'moonpay',
      createdAt: '2025-03-03T11:00:00Z',
      status: 'paid',
      reference: 'mp_e',
    });
    const held = await addDeposit(wallet, 'final', 12_500_000n, '2025-03-03T12:00:00Z', USDC_E);
    await fixture.db.pool.query(`UPDATE deposits SET status = 'held_for_operator', held_at = now() WHERE id = $1`, [held.id]);
    const body = (await status(wallet.ipnToken)).json();
    expect(body).toMatchObject({ status: 'unpaid', value_coin: '0', coin: 'polygon_usdc', txid_in: null, deposit_count: 1 });
    expect(body.deposits).toEqual([
      {
        status: 'held_for_operator',
        attention_reason: null,
        amount: '12.5',
        coin: 'polygon_usdc_e',
        token_address: USDC_E,
        note: expect.stringMatching(
          /^The customer paid 12\.5 USDC\.e, a USDC this gateway does not settle\. It is held for the gateway operator/,
        ),
        value_forwarded_coin: null,
        fee_coin: null,
        txid_in: held.txHash,
        txid_out: null,
        seen_at: '2025-03-03T12:00:00.000Z',
        forwarded_at: null,
        payment_id: paymentId,
        provider: 'moonpay',
      },
    ]);

    // Paid out by the operator by hand (gateway deposits paid-by-hand): said so, still no callback, the wallet still unpaid in USDC.
    await fixture.db.pool.query(`UPDATE deposits SET status = 'paid_by_operator' WHERE id = $1`, [held.id]);
    const paid = (await status(wallet.ipnToken)).json();
    expect(paid).toMatchObject({ status: 'unpaid', value_coin: '0', deposit_count: 1 });
    expect(paid.deposits).toMatchObject([
      {
        status: 'paid_by_operator',
        coin: 'polygon_usdc_e',
        note:
          'The customer paid 12.5 USDC.e, a USDC this gateway does not settle. The gateway operator paid it out to the payout ' +
          'wallet by hand; no callback is sent for it.',
        value_forwarded_coin: null,
      },
    ]);
  });

  it("reads one wallet only: another wallet's deposits never show", async () => {
    const a = await newWallet();
    const b = await newWallet();
    await addDeposit(b, 'seen', 1_000_000n, '2025-04-01T00:00:00Z');
    expect((await status(a.ipnToken)).json().deposits).toEqual([]);
    expect((await status(b.ipnToken)).json().deposit_count).toBe(1);
  });

  it('an unknown token: 404 in the error shape', async () => {
    const response = await status(randomBytes(24).toString('base64url'));
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      status: 'error',
      code: 'not_found',
      error: expect.stringMatching(/no wallet has this ipn_token/),
      param: 'ipn_token',
    });
  });

  it.each([
    ['too short', 'abc'],
    ['a space', 'abcdefgh ijklmnopqrstu'],
    ['a quote', `abcdefghijklmnop'--`],
    ['too long', 'a'.repeat(129)],
  ])('a malformed token (%s): 400', async (_name, token) => {
    const response = await status(token);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error', code: 'invalid_parameter', param: 'ipn_token' });
  });

  it('a missing token: 400', async () => {
    const response = await app.inject({ url: '/control/payment-status.php' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'missing_parameter', param: 'ipn_token' });
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await app.inject({ url: '/docs/json' })).json();
    const operation = doc.paths['/control/payment-status.php'].get;
    expect(operation.parameters.map((p: { name: string; required: boolean }) => [p.name, p.required])).toEqual([['ipn_token', true]]);
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '404', '429']);
    expect(Object.keys(operation.responses['200'].content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['status', 'value_coin', 'value_forwarded_coin', 'txid_in', 'txid_out', 'coin', 'deposits', 'payments']),
    );
    const log = operation.responses['200'].content['application/json'].schema.properties.callback_log;
    expect(Object.keys(log.properties.deliveries.items.properties.attempts.items.properties)).toEqual([
      'attempt_no',
      'started_at',
      'duration_ms',
      'http_status',
      'error_code',
      'response_excerpt',
      'response_excerpt_truncated',
    ]);
  });
});

describe("the order (a wallet is one order): payment-status.php's order, as the callbacks judge it", () => {
  /** The order of 45 EUR (49.5 USD at the attempt's rate) whose provider quoted 49 USDC, judged within 1 %, its window open until noon. */
  const QUOTED: PaymentExpectationSeed = {
    amountUsd: '49.50',
    usdc: 49_000_000n,
    basis: 'quote',
    toleranceBps: 100,
    windowEndsAt: '2025-06-01T12:00:00Z',
    usdRate: '0.909090909',
    usdRateSource: 'ecb',
    usdRateAsOf: '2025-05-31T14:00:00Z',
  };

  async function orderedPayment(
    wallet: Wallet,
    expectation: PaymentExpectationSeed,
    { provider = 'moonpay', createdAt = '2025-06-01T10:00:00Z' } = {},
  ): Promise<string> {
    return seedPayment(fixture.db.pool, {
      walletId: wallet.id,
      amount: '45.00',
      currency: 'EUR',
      provider,
      email: EMAIL,
      createdAt,
      expectation,
    });
  }

  const orderOf = async (wallet: Pick<Wallet, 'ipnToken'>) => {
    const response = await status(wallet.ipnToken);
    expect(response.statusCode).toBe(200);
    return response.json().order;
  };

  it('paid: the figures, the tolerance, the window and the attempt it is judged by, beside the unchanged fields', async () => {
    const wallet = await newWallet();
    const paymentId = await orderedPayment(wallet, QUOTED);
    const deposit = await addDeposit(wallet, 'forwarding', 48_800_000n, '2025-06-01T10:20:00Z');
    await forward(wallet, deposit, { value: 48_800_000n, forwarded: 48_312_000n, fee: 488_000n }, '2025-06-01T10:21:00Z');
    const body = (await status(wallet.ipnToken)).json();
    expect(body).toMatchObject({ status: 'paid', value_coin: '48.8', value_forwarded_coin: '48.312', fee_coin: '0.488', deposit_count: 1 });
    expect(body.order).toEqual({
      total_coin: '48.8',
      expected_coin: '49',
      expected_basis: 'quote',
      state: 'paid',
      missing_coin: '0',
      excess_coin: '0',
      late_coin: '0',
      tolerance_bps: 100,
      window_ends_at: '2025-06-01T12:00:00.000Z',
      judged_by: { payment_id: paymentId, provider: 'moonpay', amount: '45.00', currency: 'EUR', amount_usd: '49.50' },
      reason: "48.8 USDC arrived, within 100 basis points of 49 USDC expected (the provider's quote)",
    });
  });

  it('underpaid: what is missing, and the estimate it was judged by; two deposits then make it whole', async () => {
    const wallet = await newWallet();
    await orderedPayment(wallet, { ...QUOTED, basis: 'estimate', toleranceBps: 250 });
    const first = await addDeposit(wallet, 'forwarding', 30_000_000n, '2025-06-01T10:20:00Z');
    await forward(wallet, first, { value: 30_000_000n, forwarded: 29_700_000n, fee: 300_000n }, '2025-06-01T10:21:00Z');
    expect(await orderOf(wallet)).toMatchObject({
      total_coin: '30',
      expected_coin: '49',
      expected_basis: 'estimate',
      state: 'underpaid',
      missing_coin: '19',
      excess_coin: '0',
      tolerance_bps: 250,
      reason:
        '30 USDC arrived, 19 short of 49 USDC expected (an estimate from its documented fees), more than the 250 basis points allowed',
    });
    // A plugin that reads only `status` is not told an underpaid order is paid (it was, before orders were judged).
    expect((await status(wallet.ipnToken)).json()).toMatchObject({ status: 'unpaid', value_coin: '30' });
    // The rest, on chain but not final yet: not counted.
    const rest = await addDeposit(wallet, 'seen', 19_000_000n, '2025-06-01T10:40:00Z');
    expect(await orderOf(wallet)).toMatchObject({ total_coin: '30', state: 'underpaid', missing_coin: '19' });
    // Final: the order is whole, though not forwarded yet (value_coin still counts the forwarded one only).
    await fixture.db.pool.query(`UPDATE deposits SET status = 'final', final_at = now() WHERE id = $1`, [rest.id]);
    const body = (await status(wallet.ipnToken)).json();
    expect(body.value_coin).toBe('30');
    expect(body.status).toBe('paid');
    expect(body.order).toMatchObject({ total_coin: '49', state: 'paid', missing_coin: '0', excess_coin: '0' });
  });

  it('overpaid: what arrived beyond the expectation', async () => {
    const wallet = await newWallet();
    await orderedPayment(wallet, QUOTED, { provider: 'transak' });
    await addDeposit(wallet, 'final', 60_000_000n, '2025-06-01T10:20:00Z');
    expect(await orderOf(wallet)).toMatchObject({
      total_coin: '60',
      state: 'overpaid',
      missing_coin: '0',
      excess_coin: '11',
      judged_by: { provider: 'transak' },
      reason: expect.stringMatching(/^60 USDC arrived, 11 over 49 USDC expected/),
    });
  });

  it('late: the part that arrived after the window closed', async () => {
    const wallet = await newWallet();
    await orderedPayment(wallet, QUOTED);
    await addDeposit(wallet, 'final', 20_000_000n, '2025-06-01T11:00:00Z');
    await addDeposit(wallet, 'final', 29_000_000n, '2025-06-01T13:00:00Z');
    expect(await orderOf(wallet)).toMatchObject({
      total_coin: '49',
      state: 'late',
      late_coin: '29',
      window_ends_at: '2025-06-01T12:00:00.000Z',
      reason: expect.stringMatching(/^29 of 49 USDC arrived after the order's window closed \(2025-06-01T12:00:00\.000Z\)/),
    });
  });

  it("judged with the merchant's own tolerance where it is narrower, by the latest attempt that recorded an expectation", async () => {
    const seeded = await seedWallet(fixture.db.pool, { orderToleranceBps: 50 });
    const wallet = { ...seeded, callback: seeded.callbackUrl };
    await orderedPayment(wallet, { ...QUOTED, usdc: 10_000_000n }, { createdAt: '2025-06-01T09:00:00Z' });
    const latest = await orderedPayment(wallet, QUOTED, { provider: 'banxa' });
    // A later attempt without an expectation does not replace it.
    await addPayment(wallet, { provider: 'moonpay', createdAt: '2025-06-01T11:00:00Z' });
    await addDeposit(wallet, 'final', 48_700_000n, '2025-06-01T10:20:00Z');
    // 0.3 USDC short: within the gateway's 1 %, not within the merchant's 0.5 %.
    expect(await orderOf(wallet)).toMatchObject({
      state: 'underpaid',
      tolerance_bps: 50,
      missing_coin: '0.3',
      judged_by: { payment_id: latest, provider: 'banxa' },
    });
  });

  it('no attempt recorded an expectation: the total alone, and why nothing is judged', async () => {
    const wallet = await newWallet();
    await addPayment(wallet, { provider: 'moonpay', createdAt: '2025-06-01T10:00:00Z', status: 'paid' });
    const deposit = await addDeposit(wallet, 'forwarding', 10_000_000n, '2025-06-01T10:20:00Z');
    await forward(wallet, deposit, { value: 10_000_000n, forwarded: 9_900_000n, fee: 100_000n }, '2025-06-01T10:21:00Z');
    const body = (await status(wallet.ipnToken)).json();
    expect(body).toMatchObject({ status: 'paid', value_coin: '10' });
    expect(body.order).toEqual({
      total_coin: '10',
      expected_coin: null,
      expected_basis: null,
      state: null,
      missing_coin: null,
      excess_coin: null,
      late_coin: null,
      tolerance_bps: null,
      window_ends_at: null,
      judged_by: null,
      reason:
        '10 USDC arrived; no payment attempt on this wallet recorded what the order should bring (it was paid without Process ' +
        'Payment, or its attempts came before the gateway recorded orders), so the total is not judged',
    });
  });

  it('is in the OpenAPI document, every field of it', async () => {
    const doc = (await app.inject({ url: '/docs/json' })).json();
    const order = doc.paths['/control/payment-status.php'].get.responses['200'].content['application/json'].schema.properties.order;
    expect(Object.keys(order.properties)).toEqual([
      'total_coin',
      'expected_coin',
      'expected_basis',
      'state',
      'missing_coin',
      'excess_coin',
      'late_coin',
      'tolerance_bps',
      'window_ends_at',
      'judged_by',
      'reason',
    ]);
  });
});

describe('its own, tighter rate limit', () => {
  it('answers 429 with Retry-After after STATUS_RATE_LIMIT_MAX requests, while wallet.php still answers', async () => {
    const limited = createTestRedis('status-limit');
    const tight = await fixture.build(fixture.config({ REDIS_PREFIX: limited.prefix, STATUS_RATE_LIMIT_MAX: '3', RATE_LIMIT_MAX: '50' }), {
      redis: limited,
    });
    try {
      const wallet = await newWallet();
      const client = '203.0.113.9';
      const statuses = [];
      for (let i = 0; i < 4; i += 1) statuses.push((await status(wallet.ipnToken, tight, client)).statusCode);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await status(randomBytes(24).toString('base64url'), tight, client);
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.json()).toMatchObject({ status: 'error', code: 'rate_limited' });
      // The rest of the API keeps its own (wider) limit for the same client ...
      const create = await tight.inject({
        url: '/control/wallet.php',
        query: { address: payout, callback: 'https://shop.io/ipn?order_id=limit' },
        remoteAddress: client,
      });
      expect(create.statusCode).toBe(200);
      // ... and another client has its own count.
      expect((await status(wallet.ipnToken, tight, '198.51.100.7')).statusCode).toBe(200);
    } finally {
      await tight.close();
      await limited.close();
    }
  });
});
