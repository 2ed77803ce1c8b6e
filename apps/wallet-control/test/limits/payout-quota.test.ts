import type { FastifyInstance } from 'fastify';
import { walletControlFixture } from '../support/wallet-control-fixture';

// Create Wallet had no per-payout quota: one payout address could take HD indexes and rows without
// end (issue 17, section 4). New wallets per payout address per window are now counted in Redis.
const payout = '0x52908400098527886E0F7030069857D2E4169EE7';
const other = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';

// The operator consents to the affiliate of the shared-quota case (AFFILIATE_ADDRESSES).
const fixture = walletControlFixture('payout_quota', {
  PAYOUT_WALLET_QUOTA_MAX: '3',
  PAYOUT_WALLET_QUOTA_WINDOW_SECONDS: '600',
  AFFILIATE_ADDRESSES: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
});
let app: FastifyInstance;
let order = 0;
// A path of its own for each wallet: every wallet on a callback's origin and path has the terms of the first.
const nextCallback = () => `https://shop.io/ipn/quota-${++order}?order_id=quota-${order}`;
const createWallet = (address: string, callback: string, on = app) =>
  on.inject({ method: 'GET', url: '/control/wallet.php', query: { address, callback } });

beforeAll(async () => {
  app = await fixture.build();
});

describe('new wallets per payout address and callback origin per window (PAYOUT_WALLET_QUOTA_MAX)', () => {
  it('creates up to the quota, then answers 429 with Retry-After naming the quota', async () => {
    const first = nextCallback();
    expect((await createWallet(payout, first)).statusCode).toBe(200);
    // Identical concurrent requests make one wallet and count once.
    const second = nextCallback();
    expect((await Promise.all(Array.from({ length: 10 }, () => createWallet(payout, second)))).map((r) => r.statusCode)).toEqual(
      Array(10).fill(200),
    );
    expect((await createWallet(payout, nextCallback())).statusCode).toBe(200);

    const refused = await createWallet(payout.toLowerCase(), nextCallback());
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ status: 'error', code: 'payout_quota_exceeded', param: 'address' });
    expect(refused.json().error).toMatch(
      /on https:\/\/shop\.io: 3 new wallets per payout address and callback origin every 600 s \(PAYOUT_WALLET_QUOTA_MAX\)/,
    );
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(600);
  });

  it('still answers the wallets that exist (a plugin asking again), from any replica', async () => {
    const replica = await fixture.build();
    const { rows } = await fixture.db.pool.query<{ callback_url: string }>(
      'SELECT callback_url FROM wallets WHERE payout_address = $1 LIMIT 1',
      [payout.toLowerCase()],
    );
    expect((await createWallet(payout, rows[0]!.callback_url, replica)).statusCode).toBe(200);
    expect((await createWallet(payout, nextCallback(), replica)).statusCode).toBe(429);
  });

  it('counts each payout address on its own, and what was refused for another reason not at all', async () => {
    expect((await createWallet(other, 'https://shop.io/ipn?value_coin=1')).statusCode).toBe(400);
    for (let i = 0; i < 3; i += 1) expect((await createWallet(other, nextCallback())).statusCode).toBe(200);
    expect((await createWallet(other, nextCallback())).statusCode).toBe(429);
  });

  it("the affiliate routes share the payout address's quota", async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/control/affiliate.php',
      query: { address: payout, callback: nextCallback(), affiliate: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' },
    });
    expect([response.statusCode, response.json().code]).toEqual([429, 'payout_quota_exceeded']);
  });
});
