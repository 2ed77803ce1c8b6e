import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sleep } from '@gateway/testkit';
import { walletControlFixture } from './support/wallet-control-fixture';

// Issue 35: the per-payout quota was counted per payout address alone, and a shop's payout address
// is public: anyone could create wallets with it on callbacks of their own and spend the shop's
// quota, so the shop's next order got 429 payout_quota_exceeded, with PAYOUT_ADDRESSES pinned
// too. The quota now counts per payout address and callback origin; with PAYOUT_ADDRESSES set, the
// gateway-wide ceiling applies only to origins no wallet of that payout address has yet.

const fixture = walletControlFixture('payout_origin_quota', {
  PAYOUT_WALLET_QUOTA_MAX: '3',
  PAYOUT_WALLET_QUOTA_WINDOW_SECONDS: '600',
  NEW_WALLETS_PER_MINUTE: '40',
});
const shopPayout = '0x52908400098527886E0F7030069857D2E4169EE7';
const shopServer = '198.51.100.20';
let order = 0;
let stranger = 0;
/** A stranger from an address of its own each time: no per-client budget stands in for the quota. */
const strangerAddress = () => `203.0.113.${++stranger}`;
const createWallet = (app: FastifyInstance, address: string, callback: string, remoteAddress: string) =>
  app.inject({ method: 'GET', url: '/control/wallet.php', query: { address, callback }, remoteAddress });
const codeOf = (response: { statusCode: number; json(): { code: string } }) =>
  response.statusCode === 200 ? 'created' : response.json().code;

/** Strangers create wallets with the shop's payout address on their own origin until refused (at most `attempts`). */
async function spendFromOwnOrigin(app: FastifyInstance, origin: string, attempts = 10): Promise<string[]> {
  const codes: string[] = [];
  for (let i = 0; i < attempts; i += 1) {
    const code = codeOf(await createWallet(app, shopPayout, `${origin}/cb?order=${++order}`, strangerAddress()));
    codes.push(code);
    if (code !== 'created') break;
  }
  return codes;
}

/** A minute's window starts within this test's run: wait for the next one when fewer than 20 s are left. */
async function freshMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await sleep(left + 50);
}

describe('the per-payout quota counts per payout address and callback origin', () => {
  it("a stranger on its own callback origin spends its own window, never the shop's", async () => {
    await freshMinute();
    const app = await fixture.build();
    const shopOrder = () => createWallet(app, shopPayout, `https://shop-quota.io/ipn?order_id=${++order}`, shopServer);
    expect((await shopOrder()).statusCode).toBe(200);
    expect(await spendFromOwnOrigin(app, 'https://stranger-quota.io')).toEqual(['created', 'created', 'created', 'payout_quota_exceeded']);
    expect((await shopOrder()).statusCode).toBe(200);
    // The shop's own window still holds: its third order is its last of the window.
    expect((await shopOrder()).statusCode).toBe(200);
    const refused = await shopOrder();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'payout_quota_exceeded', param: 'address' });
    expect(refused.json().error).toMatch(
      /on https:\/\/shop-quota\.io: 3 new wallets per payout address and callback origin every 600 s \(PAYOUT_WALLET_QUOTA_MAX\)/,
    );
  });

  it('the origin is compared in its canonical form (host case, default port)', async () => {
    const app = await fixture.build();
    const origin = 'https://canonical-quota.io';
    expect(await spendFromOwnOrigin(app, origin)).toEqual(['created', 'created', 'created', 'payout_quota_exceeded']);
    const again = await createWallet(app, shopPayout, `HTTPS://Canonical-Quota.IO:443/other?order=${++order}`, strangerAddress());
    expect(codeOf(again)).toBe('payout_quota_exceeded');
  });
});

describe('with PAYOUT_ADDRESSES pinned', () => {
  let pinned: FastifyInstance;
  beforeAll(async () => {
    pinned = await fixture.build(fixture.config({ PAYOUT_ADDRESSES: shopPayout }));
  });
  const shopOrder = (origin = 'https://pinned-shop.io', server = shopServer) =>
    createWallet(pinned, shopPayout, `${origin}/ipn?order_id=${++order}`, server);

  it("strangers using the pinned payout address on their own origin cannot spend the shop's quota", async () => {
    await freshMinute();
    expect((await shopOrder()).statusCode).toBe(200);
    expect(await spendFromOwnOrigin(pinned, 'https://pinned-stranger.io')).toEqual([
      'created',
      'created',
      'created',
      'payout_quota_exceeded',
    ]);
    expect((await shopOrder()).statusCode).toBe(200);
  });

  it("strangers filling the ceiling from new origins leave the shop's claimed origin its orders; a new origin waits", async () => {
    await freshMinute();
    // The shop's origin is claimed by a wallet of its payout address (a shop server of its own: the
    // first tests spent the other's budget on new origins).
    const shop = 'https://pinned-shop-claimed.io';
    const server = '198.51.100.21';
    expect(codeOf(await shopOrder(shop, server))).toBe('created');
    const codes: string[] = [];
    for (let burst = 0; burst < 6 && !codes.includes('new_wallet_ceiling'); burst += 1) {
      const responses = await Promise.all(
        Array.from({ length: 10 }, () =>
          createWallet(pinned, shopPayout, `https://pinned-${randomBytes(4).toString('hex')}.io/cb?order=${++order}`, strangerAddress()),
        ),
      );
      codes.push(...responses.map(codeOf));
    }
    expect(codes).toContain('new_wallet_ceiling');
    expect(codes.filter((code) => code !== 'created' && code !== 'new_wallet_ceiling')).toEqual([]);
    expect([codeOf(await shopOrder(shop, server)), codeOf(await shopOrder(shop, server))]).toEqual(['created', 'created']);
    expect(codeOf(await shopOrder('https://pinned-shop-unclaimed.io', server))).toBe('new_wallet_ceiling');
  });
});
