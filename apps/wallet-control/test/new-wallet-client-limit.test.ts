import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ConfigError } from '@gateway/config';
import { sleep } from '@gateway/testkit';
import { walletControlFixture } from './support/wallet-control-fixture';

// Issue 35: the gateway-wide ceiling (NEW_WALLETS_PER_MINUTE) was as large as one client's rate
// limit, so one client with random payout addresses and callbacks on its own domain took the
// whole minute and every other merchant's new order got 429 new_wallet_ceiling. Each client (an
// IPv4 address or an IPv6 /64, as the rate limiter counts it) now has a budget of new wallets per
// minute, a tenth of the ceiling unless set (NEW_WALLETS_PER_CLIENT_PER_MINUTE).

const fixture = walletControlFixture('new_wallet_client_limit', { NEW_WALLETS_PER_MINUTE: '60' });
const hostile = '203.0.113.66';
const shopServer = '198.51.100.20';
const shopPayout = '0x52908400098527886E0F7030069857D2E4169EE7';
const randomPayout = () => `0x${randomBytes(20).toString('hex')}`;
let order = 0;
const hostileCallback = () => `https://hostile-${randomBytes(4).toString('hex')}.io/cb?order=${++order}`;
const shopCallback = () => `https://shop-limit.io/ipn?order_id=${++order}`;
const createWallet = (app: FastifyInstance, address: string, callback: string, remoteAddress: string) =>
  app.inject({ method: 'GET', url: '/control/wallet.php', query: { address, callback }, remoteAddress });

/** A minute's window starts within this test's run: wait for the next one when fewer than 20 s are left. */
async function freshMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await sleep(left + 50);
}

let app: FastifyInstance;
beforeAll(async () => {
  app = await fixture.build();
});

describe('one client cannot take the gateway-wide ceiling (NEW_WALLETS_PER_CLIENT_PER_MINUTE)', () => {
  it("a hostile client at full speed is refused at its own budget while the shop's orders all succeed", async () => {
    await freshMinute();
    const shopStatuses: number[] = [];
    const hostileCodes = new Map<string, number>();
    // The hostile client sends bursts of 20 (more than the whole ceiling in three bursts); the shop
    // places one order between bursts, as a shop's checkout does.
    for (let burst = 0; burst < 4; burst += 1) {
      const responses = await Promise.all(Array.from({ length: 20 }, () => createWallet(app, randomPayout(), hostileCallback(), hostile)));
      for (const response of responses) {
        const code = response.statusCode === 200 ? 'created' : response.json().code;
        hostileCodes.set(code, (hostileCodes.get(code) ?? 0) + 1);
      }
      shopStatuses.push((await createWallet(app, shopPayout, shopCallback(), shopServer)).statusCode);
    }
    expect(shopStatuses).toEqual([200, 200, 200, 200]);
    // Six (a tenth of 60) new wallets a minute for the hostile client, the rest refused as its own.
    expect(Object.fromEntries(hostileCodes)).toEqual({ created: 6, new_wallet_client_limit: 74 });
  });

  it('answers the client past its budget with 429, Retry-After and a message naming the setting; repeats still pass', async () => {
    await freshMinute();
    const client = '192.0.2.10';
    const first = { address: randomPayout(), callback: hostileCallback() };
    expect((await createWallet(app, first.address, first.callback, client)).statusCode).toBe(200);
    for (let i = 0; i < 5; i += 1) expect((await createWallet(app, randomPayout(), hostileCallback(), client)).statusCode).toBe(200);
    const refused = await createWallet(app, randomPayout(), hostileCallback(), client);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ status: 'error', code: 'new_wallet_client_limit' });
    expect(refused.json().error).toMatch(/6 new wallets per minute from one client \(NEW_WALLETS_PER_CLIENT_PER_MINUTE\)/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const repeat = await createWallet(app, first.address, first.callback, client);
    expect(repeat.statusCode).toBe(200);
    expect(await app.metrics.metrics()).toMatch(/^wallet_control_new_wallets_refused_total\{reason="client_limit"[^}]*\} [1-9]\d*$/m);
  });

  it('counts an IPv6 client as its /64, as the rate limiter does', async () => {
    await freshMinute();
    const statuses: number[] = [];
    for (let i = 1; i <= 7; i += 1) {
      statuses.push((await createWallet(app, randomPayout(), hostileCallback(), `2001:db8:35:7::${i.toString(16)}`)).statusCode);
    }
    expect(statuses).toEqual([...Array(6).fill(200), 429]);
    expect((await createWallet(app, randomPayout(), hostileCallback(), '2001:db8:35:8::1')).statusCode).toBe(200);
  });
});

describe('the setting', () => {
  it('is a tenth of NEW_WALLETS_PER_MINUTE unless set, at least 1', () => {
    expect(fixture.config().newWalletLimits.perClientPerMinute).toBe(6);
    expect(fixture.config({ NEW_WALLETS_PER_MINUTE: '5' }).newWalletLimits.perClientPerMinute).toBe(1);
    expect(fixture.config({ NEW_WALLETS_PER_CLIENT_PER_MINUTE: '30' }).newWalletLimits.perClientPerMinute).toBe(30);
  });

  it('refuses a budget that lets one client take the whole ceiling, naming both settings', () => {
    expect(() => fixture.config({ NEW_WALLETS_PER_CLIENT_PER_MINUTE: '60' })).toThrow(ConfigError);
    expect(() => fixture.config({ NEW_WALLETS_PER_CLIENT_PER_MINUTE: '60' })).toThrow(
      /NEW_WALLETS_PER_CLIENT_PER_MINUTE: 60 is not below NEW_WALLETS_PER_MINUTE \(60\)/,
    );
  });
});
