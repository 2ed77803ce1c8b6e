import type { FastifyInstance } from 'fastify';
import { walletControlFixture } from '../support/wallet-control-fixture';

// Issue 22 (HIGH), run with the default settings: the last fix bound a callback to its first
// payout address byte for byte, so a stranger appended `&x=1` (every shop framework still reads
// the same order), registered that variant with the merchant's own payout address and an
// affiliate of their own at merchant_fee=0, and kept 99% of what they paid in while the shop got a
// validly signed "paid" callback with address_out = its own payout address.
const merchant = '0x52908400098527886E0F7030069857D2E4169EE7';
const stranger = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const strangerAffiliate = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

const fixture = walletControlFixture('affiliate_hijack');
let app: FastifyInstance;

const get = (url: string, query: Record<string, string>) => app.inject({ method: 'GET', url, query });

beforeAll(async () => {
  app = await fixture.build(fixture.config());
});

/** custom-affiliate.php with the merchant's payout address and the stranger's affiliate at `split`. */
const strangersSplit = (callback: string, split: { merchant_fee: string; affiliate_fee: string }) =>
  get('/control/custom-affiliate.php', { address: merchant, callback, affiliate: strangerAffiliate, ...split });

const shopOrder = async (order: string) => {
  const callback = `https://shop.io/ipn?order_id=${order}`;
  expect((await get('/control/wallet.php', { address: merchant, callback })).statusCode).toBe(200);
  return callback;
};

async function walletsOn(order: string) {
  const { rows } = await fixture.db.pool.query<{ payout_address: string; affiliate_address: string | null }>(
    'SELECT payout_address, affiliate_address FROM wallets WHERE callback_url LIKE $1 ORDER BY id',
    [`https://shop.io/ipn?order_id=${order}%`],
  );
  return rows;
}

it("steps 1-2: another payout address on the shop's callback is 409, also with another query", async () => {
  const callback = await shopOrder('hijack-1');
  const own = await get('/control/wallet.php', { address: stranger, callback });
  expect(own.statusCode).toBe(409);
  expect(own.json()).toMatchObject({ code: 'callback_registered_elsewhere', param: 'callback' });

  const variant = await get('/control/wallet.php', { address: stranger, callback: `${callback}&x=1` });
  expect(variant.statusCode).toBe(409);
  expect(variant.json()).toMatchObject({ code: 'callback_registered_elsewhere', param: 'callback' });
  expect(await walletsOn('hijack-1')).toEqual([{ payout_address: merchant.toLowerCase(), affiliate_address: null }]);
});

it("step 3: the merchant's payout, the variant and the stranger's affiliate at merchant_fee=0 get no wallet", async () => {
  const callback = await shopOrder('hijack-2');
  const step3 = await strangersSplit(`${callback}&x=1`, { merchant_fee: '0', affiliate_fee: '0.99' });
  expect(step3.statusCode).toBeGreaterThanOrEqual(400);
  expect(step3.statusCode).toBeLessThan(500);

  // A token merchant leg instead: the payout address's owner consented to nothing.
  const token = await strangersSplit(`${callback}&x=2`, { merchant_fee: '0.0001', affiliate_fee: '0.9899' });
  expect(token.statusCode).toBe(403);
  expect(token.json()).toMatchObject({ code: 'affiliate_consent_required', param: 'signature' });
  expect(await walletsOn('hijack-2')).toEqual([{ payout_address: merchant.toLowerCase(), affiliate_address: null }]);
});
