import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { openAddressIn } from '@gateway/domain';
import type { WalletControlConfig } from '../../src/config';
import { walletControlFixture } from '../support/wallet-control-fixture';

const payout = '0x52908400098527886E0F7030069857D2E4169EE7';
const affiliate = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const otherAffiliate = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

// The operator consents to these affiliates (AFFILIATE_ADDRESSES); affiliate-consent.test.ts covers the owner's signature.
const fixture = walletControlFixture('affiliate', { AFFILIATE_ADDRESSES: `${affiliate},${otherAffiliate}` });
let app: FastifyInstance;
let config: WalletControlConfig;

let order = 0;
// A path of its own for each wallet: every wallet on a callback's origin and path has the terms of the first.
const nextCallback = () => `https://shop.io/ipn/aff-${++order}?order_id=aff-${order}`;

const get = (url: string, query: Record<string, string>, on = app) => on.inject({ method: 'GET', url, query });
const wallet = (callback: string, extra: Record<string, string> = {}) =>
  get('/control/wallet.php', { address: payout, callback, ...extra });
const affiliateWallet = (callback: string, extra: Record<string, string> = {}) =>
  get('/control/affiliate.php', { address: payout, callback, affiliate, ...extra });
const customWallet = (callback: string, extra: Record<string, string> = {}, on = app) =>
  get('/control/custom-affiliate.php', { address: payout, callback, affiliate, affiliate_fee: '0.01', merchant_fee: '0.98', ...extra }, on);

async function walletRows(callback: string) {
  const { rows } = await fixture.db.pool.query<{
    affiliate_address: string | null;
    affiliate_fee_bps: number | null;
    merchant_fee_bps: number | null;
    ipn_token: string;
  }>('SELECT affiliate_address, affiliate_fee_bps, merchant_fee_bps, ipn_token FROM wallets WHERE callback_url = $1', [callback]);
  return rows;
}

/** 50 identical requests at once (`request` for a callback of its own): one wallet, the same answer to each. */
async function expectOneWalletForConcurrentRequests(request: (callback: string) => ReturnType<typeof get>): Promise<void> {
  const callback = nextCallback();
  const responses = await Promise.all(Array.from({ length: 50 }, () => request(callback)));
  expect(responses.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
  expect(new Set(responses.map((r) => r.body)).size).toBe(1);
  expect(await walletRows(callback)).toHaveLength(1);
}

beforeAll(async () => {
  config = fixture.config();
  app = await fixture.build(config);
});

describe('GET /control/affiliate.php', () => {
  it("returns a wallet in Create Wallet's shape, recording the affiliate and the configured share (0.5% by default)", async () => {
    const callback = nextCallback();
    const response = await affiliateWallet(callback);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['address_in', 'callback_url', 'ipn_token', 'polygon_address_in']);
    expect(body.callback_url).toBe(callback);
    expect(openAddressIn(body.address_in, config.keys)).toBe(body.polygon_address_in.toLowerCase());
    expect(config.raw.AFFILIATE_SHARE_BPS).toBe(50);
    expect(await walletRows(callback)).toEqual([
      { affiliate_address: affiliate.toLowerCase(), affiliate_fee_bps: 50, merchant_fee_bps: null, ipn_token: body.ipn_token },
    ]);
  });

  it('returns the same wallet for the same address, callback and affiliate (any case)', async () => {
    const callback = nextCallback();
    const first = (await affiliateWallet(callback)).json();
    expect((await affiliateWallet(callback)).json()).toEqual(first);
    expect((await affiliateWallet(callback, { affiliate: affiliate.toLowerCase(), address: payout.toLowerCase() })).json()).toEqual(first);
    expect(await walletRows(callback)).toHaveLength(1);
  });

  it('creates exactly one wallet for 50 identical concurrent requests', () => expectOneWalletForConcurrentRequests(affiliateWallet));
});

describe('GET /control/custom-affiliate.php', () => {
  it('returns a wallet recording the split in basis points', async () => {
    const callback = nextCallback();
    const response = await customWallet(callback, { affiliate_fee: '0.0125', merchant_fee: '0.9775' });
    expect(response.statusCode).toBe(200);
    expect(Object.keys(response.json()).sort()).toEqual(['address_in', 'callback_url', 'ipn_token', 'polygon_address_in']);
    expect(await walletRows(callback)).toEqual([
      { affiliate_address: affiliate.toLowerCase(), affiliate_fee_bps: 125, merchant_fee_bps: 9_775, ipn_token: response.json().ipn_token },
    ]);
  });

  it('returns the same wallet for the same split, however its decimals are written', async () => {
    const callback = nextCallback();
    const first = (await customWallet(callback)).json();
    expect((await customWallet(callback)).json()).toEqual(first);
    expect((await customWallet(callback, { affiliate_fee: '0.0100', merchant_fee: '0.980000' })).json()).toEqual(first);
  });

  it('creates exactly one wallet for 50 identical concurrent requests', () => expectOneWalletForConcurrentRequests(customWallet));

  it('validates the split against the configured platform fee', async () => {
    const zeroFee = await fixture.build(fixture.config({ PLATFORM_FEE_BPS: '0' }));
    try {
      expect((await customWallet(nextCallback(), { affiliate_fee: '0.02', merchant_fee: '0.98' }, zeroFee)).statusCode).toBe(200);
      const refused = await customWallet(nextCallback(), {}, zeroFee);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error).toMatch(/must equal 1 \(1 minus the platform fee of 0\)/);
    } finally {
      await zeroFee.close();
    }
  });
});

describe("a wallet's affiliate terms never change", () => {
  const cases: Array<[string, (cb: string) => ReturnType<typeof wallet>, (cb: string) => ReturnType<typeof wallet>, RegExp]> = [
    ['wallet.php, then affiliate.php', (cb) => wallet(cb), (cb) => affiliateWallet(cb), /no affiliate \(it was created by wallet\.php\)/],
    [
      'affiliate.php, then wallet.php',
      (cb) => affiliateWallet(cb),
      (cb) => wallet(cb),
      /configured affiliate share for 0x8ba1f109551bD432803012645Ac136ddd64DBA72/,
    ],
    [
      'affiliate.php, then another affiliate',
      (cb) => affiliateWallet(cb),
      (cb) => affiliateWallet(cb, { affiliate: otherAffiliate }),
      /affiliate\.php/,
    ],
    [
      'affiliate.php, then custom-affiliate.php',
      (cb) => affiliateWallet(cb),
      (cb) => customWallet(cb, { affiliate_fee: '0.005', merchant_fee: '0.985' }),
      /affiliate\.php/,
    ],
    [
      'custom-affiliate.php, then another split',
      (cb) => customWallet(cb),
      (cb) => customWallet(cb, { affiliate_fee: '0.02', merchant_fee: '0.97' }),
      /merchant_fee=0\.98, affiliate_fee=0\.01/,
    ],
    [
      'custom-affiliate.php, then another affiliate',
      (cb) => customWallet(cb),
      (cb) => customWallet(cb, { affiliate: otherAffiliate }),
      /custom-affiliate\.php/,
    ],
    ['custom-affiliate.php, then wallet.php', (cb) => customWallet(cb), (cb) => wallet(cb), /custom split/],
    ['custom-affiliate.php, then affiliate.php', (cb) => customWallet(cb), (cb) => affiliateWallet(cb), /custom split/],
  ];

  it.each(cases)('%s: 409 with the existing terms, and the wallet as it was', async (_name, first, second, message) => {
    const callback = nextCallback();
    const created = await first(callback);
    expect(created.statusCode).toBe(200);
    const before = await walletRows(callback);
    const response = await second(callback);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ status: 'error', code: 'conflict', param: 'callback' });
    expect(response.json().error).toMatch(message);
    expect(response.json().error).toMatch(/callback URL on another path/);
    expect(response.body).not.toContain(created.json().ipn_token);
    expect(await walletRows(callback)).toEqual(before);
    // The original request still gets its wallet.
    expect((await first(callback)).json()).toEqual(created.json());
  });

  it('concurrent requests with different terms: one wallet, the others refused with 409, none with 5xx', async () => {
    const callback = nextCallback();
    const requests = Array.from({ length: 30 }, (_, i) =>
      [() => wallet(callback), () => affiliateWallet(callback), () => customWallet(callback)][i % 3]!(),
    );
    const responses = await Promise.all(requests);
    const rows = await walletRows(callback);
    expect(rows).toHaveLength(1);
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    for (const r of responses.filter((r) => r.statusCode === 200)) expect(r.json().ipn_token).toBe(rows[0]!.ipn_token);
  });
});

describe('bad input: 400 naming the parameter', () => {
  const callback = 'https://shop.io/ipn?order_id=bad';
  const base = { address: payout, callback, affiliate };
  const custom = { ...base, affiliate_fee: '0.01', merchant_fee: '0.98' };
  const cases: Array<[string, string, Record<string, string>, string, string, RegExp]> = [
    [
      'affiliate.php without affiliate',
      '/control/affiliate.php',
      { address: payout, callback },
      'missing_parameter',
      'affiliate',
      /affiliate is required: the affiliate's own USDC wallet/,
    ],
    ['affiliate.php without address', '/control/affiliate.php', { callback, affiliate }, 'missing_parameter', 'address', /required/],
    [
      'affiliate.php with a short affiliate',
      '/control/affiliate.php',
      { ...base, affiliate: '0x1234' },
      'invalid_parameter',
      'affiliate',
      /40 hexadecimal/,
    ],
    [
      'affiliate.php with a bad checksum',
      '/control/affiliate.php',
      { ...base, affiliate: affiliate.replace('bD4', 'bd4') },
      'invalid_parameter',
      'affiliate',
      /EIP-55/,
    ],
    [
      'affiliate.php with the zero address',
      '/control/affiliate.php',
      { ...base, affiliate: `0x${'0'.repeat(40)}` },
      'invalid_parameter',
      'affiliate',
      /zero address/,
    ],
    [
      'affiliate.php with the token contract',
      '/control/affiliate.php',
      { ...base, affiliate: USDC },
      'invalid_parameter',
      'affiliate',
      /token contract/,
    ],
    [
      'affiliate.php with the payout address',
      '/control/affiliate.php',
      { ...base, affiliate: payout.toLowerCase() },
      'invalid_parameter',
      'affiliate',
      /must differ from address/,
    ],
    [
      'affiliate.php with a bad callback',
      '/control/affiliate.php',
      { ...base, callback: '/ipn' },
      'invalid_parameter',
      'callback',
      /absolute/,
    ],
    [
      'custom without affiliate_fee',
      '/control/custom-affiliate.php',
      { ...base, merchant_fee: '0.98' },
      'missing_parameter',
      'affiliate_fee',
      /required/,
    ],
    [
      'custom without merchant_fee',
      '/control/custom-affiliate.php',
      { ...base, affiliate_fee: '0.01' },
      'missing_parameter',
      'merchant_fee',
      /required/,
    ],
    [
      'custom without affiliate',
      '/control/custom-affiliate.php',
      { address: payout, callback, affiliate_fee: '0.01', merchant_fee: '0.98' },
      'missing_parameter',
      'affiliate',
      /required/,
    ],
    [
      'a split that does not add up',
      '/control/custom-affiliate.php',
      { ...custom, merchant_fee: '0.99' },
      'invalid_parameter',
      'merchant_fee',
      /must equal 0\.99 .*got 0\.99 \+ 0\.01 = 1/,
    ],
    [
      'a split of the whole payment',
      '/control/custom-affiliate.php',
      { ...custom, affiliate_fee: '0.5', merchant_fee: '0.5' },
      'invalid_parameter',
      'merchant_fee',
      /must equal 0\.99/,
    ],
    [
      'more than 4 decimals',
      '/control/custom-affiliate.php',
      { ...custom, affiliate_fee: '0.00995', merchant_fee: '0.98005' },
      'invalid_parameter',
      'affiliate_fee',
      /more than 4 decimals/,
    ],
    [
      'a fee above 1',
      '/control/custom-affiliate.php',
      { ...custom, merchant_fee: '1.5' },
      'invalid_parameter',
      'merchant_fee',
      /between 0 and 1/,
    ],
    [
      'a negative fee',
      '/control/custom-affiliate.php',
      { ...custom, affiliate_fee: '-0.01', merchant_fee: '1' },
      'invalid_parameter',
      'affiliate_fee',
      /plain decimal fraction/,
    ],
    [
      'a percentage',
      '/control/custom-affiliate.php',
      { ...custom, affiliate_fee: '1%' },
      'invalid_parameter',
      'affiliate_fee',
      /plain decimal fraction/,
    ],
    [
      'an exponent',
      '/control/custom-affiliate.php',
      { ...custom, affiliate_fee: '1e-2' },
      'invalid_parameter',
      'affiliate_fee',
      /plain decimal fraction/,
    ],
    [
      'the payout address as affiliate',
      '/control/custom-affiliate.php',
      { ...custom, affiliate: payout },
      'invalid_parameter',
      'affiliate',
      /must differ from address/,
    ],
  ];

  it.each(cases)('%s', async (_name, url, query, code, param, message) => {
    const response = await get(url, query);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error', code, param });
    expect(response.json().error).toMatch(message);
  });

  it('a repeated parameter', async () => {
    const response = await app.inject({
      url: `/control/custom-affiliate.php?address=${payout}&callback=https%3A%2F%2Fshop.io%2Fx&affiliate=${affiliate}&affiliate_fee=0.01&affiliate_fee=0.02&merchant_fee=0.98`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_parameter', param: 'affiliate_fee' });
  });

  it('nothing was written for any of them', async () => {
    expect(await walletRows(callback)).toEqual([]);
  });
});

describe('configuration and documentation', () => {
  it('refuses an affiliate share that, with the platform fee, leaves the merchant nothing', () => {
    expect(() => fixture.config({ PLATFORM_FEE_BPS: '9000', AFFILIATE_SHARE_BPS: '1001' })).toThrow(/AFFILIATE_SHARE_BPS/);
    expect(() => fixture.config({ PLATFORM_FEE_BPS: '9000', AFFILIATE_SHARE_BPS: '1000' })).toThrow(/leaves the merchant nothing/);
    expect(fixture.config({ PLATFORM_FEE_BPS: '9000', AFFILIATE_SHARE_BPS: '999' }).raw.AFFILIATE_SHARE_BPS).toBe(999);
    expect(() => fixture.config({ PLATFORM_FEE_BPS: '10001' })).toThrow(/PLATFORM_FEE_BPS/);
  });

  it('uses the configured share for new affiliate.php wallets', async () => {
    // The same sealing keys: a replica that differs in the share only (another key would re-seal address_in).
    const other = await fixture.build(fixture.config({ AFFILIATE_SHARE_BPS: '125', ADDRESS_IN_KEYS: config.raw.ADDRESS_IN_KEYS }));
    try {
      const callback = nextCallback();
      expect((await get('/control/affiliate.php', { address: payout, callback, affiliate }, other)).statusCode).toBe(200);
      expect((await walletRows(callback))[0]).toMatchObject({ affiliate_fee_bps: 125, merchant_fee_bps: null });
      // A repeat under another configured share returns the wallet with the share it was created with.
      const first = (await get('/control/affiliate.php', { address: payout, callback, affiliate }, other)).json();
      expect((await affiliateWallet(callback)).json()).toEqual(first);
      expect((await walletRows(callback))[0]).toMatchObject({ affiliate_fee_bps: 125 });
    } finally {
      await other.close();
    }
  });

  it('the database refuses terms the API would never write (migration 008)', async () => {
    const insert = (affiliateAddress: string, affiliateBps: number | null, merchantBps: number | null) =>
      fixture.db.pool.query(
        `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token,
                              affiliate_address, affiliate_fee_bps, merchant_fee_bps)
         VALUES (999999, $1, 'x', $2, 'https://shop.io/x', $3, $4, $5, $6, $7)`,
        [
          `0x${'9'.repeat(40)}`,
          payout.toLowerCase(),
          randomBytes(32),
          randomBytes(24).toString('hex'),
          affiliateAddress,
          affiliateBps,
          merchantBps,
        ],
      );
    await expect(insert(payout.toLowerCase(), 50, null)).rejects.toThrow(/wallets_affiliate_not_payout/);
    await expect(insert(affiliate.toLowerCase(), 300, 9_800)).rejects.toThrow(/wallets_custom_split/);
    await expect(insert(affiliate.toLowerCase(), null, 9_800)).rejects.toThrow(/wallets_(custom_split|affiliate_pair)/);
  });

  it('publishes both operations in OpenAPI, every parameter documented', async () => {
    const doc = (await app.inject({ url: '/docs/json' })).json();
    const params = (path: string) =>
      doc.paths[path].get.parameters.map((p: { name: string; required: boolean; description?: string }) => [
        p.name,
        p.required,
        Boolean(p.description),
      ]);
    expect(params('/control/affiliate.php')).toEqual([
      ['address', true, true],
      ['callback', true, true],
      ['order_tolerance_bps', false, true],
      ['customer_pays_fee', false, true],
      ['affiliate', true, true],
      ['signature', false, true],
    ]);
    expect(params('/control/custom-affiliate.php')).toEqual([
      ['address', true, true],
      ['callback', true, true],
      ['order_tolerance_bps', false, true],
      ['customer_pays_fee', false, true],
      ['affiliate', true, true],
      ['affiliate_fee', true, true],
      ['merchant_fee', true, true],
      ['signature', false, true],
    ]);
    expect(Object.keys(doc.paths['/control/custom-affiliate.php'].get.responses).sort()).toEqual(['200', '400', '403', '409', '429']);
  });
});
