import type { FastifyInstance } from 'fastify';
import { runGateway } from '@gateway/app-testkit';
import type { WalletControlConfig } from '../../src/config';
import { walletControlFixture } from '../support/wallet-control-fixture';

// The review's proof (issue 17, section 1): anyone could register the merchant's callback URL with
// their own payout address, pay the wallet, and have the shop receive a validly signed "paid"
// callback for money that went to them. A callback URL now belongs to the first wallet registered
// with it.
const merchant = '0x52908400098527886E0F7030069857D2E4169EE7';
const attacker = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const attackerAffiliate = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

// The operator consents to the affiliate (AFFILIATE_ADDRESSES): what is left to refuse is the ownership.
const fixture = walletControlFixture('callback_owner', { AFFILIATE_ADDRESSES: attackerAffiliate });
let app: FastifyInstance;
let config: WalletControlConfig;

let order = 0;
// A path of its own for each test: a callback's origin and path belong to their first payout address.
const nextCallback = () => `https://shop.io/ipn/${++order}?order_id=own-${order}`;
const get = (url: string, query: Record<string, string>) => app.inject({ method: 'GET', url, query });
const wallet = (address: string, callback: string) => get('/control/wallet.php', { address, callback });
const customAffiliate = (address: string, callback: string, split: { merchant_fee: string; affiliate_fee: string }) =>
  get('/control/custom-affiliate.php', { address, callback, affiliate: attackerAffiliate, ...split });

async function walletsOf(callback: string) {
  const { rows } = await fixture.db.pool.query<{ payout_address: string; ipn_token: string; callback_released_at: Date | null }>(
    'SELECT payout_address, ipn_token, callback_released_at FROM wallets WHERE callback_url = $1 ORDER BY id',
    [callback],
  );
  return rows;
}

const racingPayouts = [merchant, attacker, '0x000000000000000000000000000000000000bEEF'];
/** 30 Create Wallets at once on two replicas, the three racing payout addresses in turn; `callbackOf(i)`: the i-th one's callback. */
async function raceThreePayouts(callbackOf: (i: number) => string) {
  const replica = await fixture.build(config);
  return Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      (i % 2 ? replica : app).inject({
        method: 'GET',
        url: '/control/wallet.php',
        query: { address: racingPayouts[i % 3]!, callback: callbackOf(i) },
      }),
    ),
  );
}

beforeAll(async () => {
  config = fixture.config();
  app = await fixture.build(config);
});

describe('a callback URL belongs to the first wallet registered with it', () => {
  it("the hijack: the merchant's callback with another payout address gets 409 callback_registered_elsewhere", async () => {
    const callback = nextCallback();
    const shop = await wallet(merchant, callback);
    expect(shop.statusCode).toBe(200);

    const hijack = await wallet(attacker, callback);
    expect(hijack.statusCode).toBe(409);
    expect(hijack.json()).toMatchObject({ status: 'error', code: 'callback_registered_elsewhere', param: 'callback' });
    expect(hijack.json().error).toMatch(/already registered .*another payout address/);
    expect(hijack.json().error).toMatch(/callback URL on another path/);
    // Nothing of the merchant's wallet leaks to whoever tries.
    expect(hijack.body).not.toContain(shop.json().ipn_token);
    expect(hijack.body).not.toContain(merchant.slice(2).toLowerCase());
    expect(await walletsOf(callback)).toEqual([expect.objectContaining({ payout_address: merchant.toLowerCase() })]);
    // The merchant's repeat still gets its wallet.
    expect((await wallet(merchant, callback)).json()).toEqual(shop.json());
  });

  it.each([
    [
      'custom-affiliate.php with a token merchant leg and another payout address gets the same 409',
      attacker,
      'callback_registered_elsewhere',
    ],
    ["the merchant's own payout address with other affiliate terms gets 409 conflict (the terms never change)", merchant, 'conflict'],
  ])('%s', async (_title, payout, code) => {
    const callback = nextCallback();
    expect((await wallet(merchant, callback)).statusCode).toBe(200);
    const refused = await customAffiliate(payout, callback, { merchant_fee: '0.0001', affiliate_fee: '0.9899' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code, param: 'callback' });
  });

  it('a repeat with the same terms returns the same wallet, also from another replica (no memory of it)', async () => {
    const callback = nextCallback();
    const first = (await wallet(merchant, callback)).json();
    const replica = await fixture.build(config);
    const again = await replica.inject({ method: 'GET', url: '/control/wallet.php', query: { address: merchant.toLowerCase(), callback } });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first);
    const hijack = await replica.inject({ method: 'GET', url: '/control/wallet.php', query: { address: attacker, callback } });
    expect(hijack.statusCode).toBe(409);
  });

  it('concurrent requests for one callback with different payout addresses: one wins, the others 409, never 5xx', async () => {
    const callback = nextCallback();
    const responses = await raceThreePayouts(() => callback);
    const rows = await walletsOf(callback);
    expect(rows).toHaveLength(1);
    const winner = rows[0]!.payout_address;
    for (const [i, response] of responses.entries()) {
      const sent = racingPayouts[i % 3]!.toLowerCase();
      if (sent === winner) {
        expect(response.statusCode).toBe(200);
        expect(response.json().ipn_token).toBe(rows[0]!.ipn_token);
      } else {
        expect([response.statusCode, response.json().code]).toEqual([409, 'callback_registered_elsewhere']);
      }
    }
  });

  it('the database refuses a second live wallet for a callback, whoever writes it (migration 013)', async () => {
    const callback = nextCallback();
    expect((await wallet(merchant, callback)).statusCode).toBe(200);
    await expect(
      fixture.db.pool.query(
        `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
         VALUES (nextval('wallet_hd_index_seq'), '0x${'12'.repeat(20)}', 'x', $1, $2, '\\x00', 'tok-raw-insert')`,
        [attacker.toLowerCase(), callback],
      ),
    ).rejects.toMatchObject({ code: '23505', constraint: 'wallets_callback_owner_idx' });
  });
});

describe("CALLBACK_OWNERSHIP=path (the default): a callback's origin and path belong to its first wallet's terms", () => {
  it('another order id on the path is a new wallet for the same payout and terms, a 409 for any other payout', async () => {
    const callback = nextCallback();
    const first = (await wallet(merchant, callback)).json();
    const next = await wallet(merchant, `${callback}0`);
    expect(next.statusCode).toBe(200);
    expect(next.json().ipn_token).not.toBe(first.ipn_token);
    expect(next.json().polygon_address_in).not.toBe(first.polygon_address_in);
    for (const variant of [`${callback}0`, `${callback}&x=1`, callback.replace('?', '?x=1&'), `${callback}#frag`]) {
      expect([variant, (await wallet(attacker, variant)).statusCode]).toEqual([variant, 409]);
    }
  });

  it('compares origin and path in canonical form: scheme and host case, default port, dot-segments, encoded unreserved', async () => {
    const n = ++order;
    expect((await wallet(merchant, `https://shop.io/pay/ipn?order_id=${n}`)).statusCode).toBe(200);
    const spellings = [
      `HTTPS://SHOP.IO/pay/ipn?order_id=${n}`,
      `https://shop.io:443/pay/ipn?order_id=${n}&x=1`,
      `https://shop.io./pay/ipn?order_id=${n}`,
      `https://shop.io/pay/./ipn?order_id=${n}`,
      `https://shop.io/pay/x/../ipn?order_id=${n}`,
      `https://shop.io/pay/%2e/ipn?order_id=${n}`,
      `https://shop.io/pay/%69pn?order_id=${n}`,
      `https://shop.io\\pay\\ipn?order_id=${n}`,
    ];
    for (const spelling of spellings) {
      const response = await wallet(attacker, spelling);
      expect([spelling, response.statusCode, response.json().code]).toEqual([spelling, 409, 'callback_registered_elsewhere']);
    }
    // Another path, port or scheme is another callback.
    for (const other of [
      `https://shop.io/pay/ipn2?order_id=${n}`,
      `https://shop.io:8443/pay/ipn?order_id=${n}`,
      `http://shop.io/pay/ipn?order_id=${n}`,
    ]) {
      expect([other, (await wallet(attacker, other)).statusCode]).toEqual([other, 200]);
    }
  });

  // Issue 35: the shop's server runs one handler for each of these spellings of its path.
  it.each([
    ['a trailing slash', (n: number) => `https://shop.io/srv${n}/ipn/?order_id=${n}`],
    ['a doubled slash', (n: number) => `https://shop.io//srv${n}/ipn?order_id=${n}`],
    ['capitals', (n: number) => `https://shop.io/SRV${n}/IPN?order_id=${n}`],
    ['a path parameter', (n: number) => `https://shop.io/srv${n}/ipn;x?order_id=${n}`],
    ['its index.php', (n: number) => `https://shop.io/srv${n}/ipn/index.php?order_id=${n}`],
    ['its index.html', (n: number) => `https://shop.io/srv${n}/ipn/index.html?order_id=${n}`],
  ])("a stranger's wallet on the shop's path spelt with %s gets the 409 the exact path gets", async (_spelling, spell) => {
    const n = ++order;
    const exact = `https://shop.io/srv${n}/ipn?order_id=${n}`;
    expect((await wallet(merchant, exact)).statusCode).toBe(200);
    const onExact = await wallet(attacker, `${exact}&x=1`);
    expect([onExact.statusCode, onExact.json().code]).toEqual([409, 'callback_registered_elsewhere']);
    const spelt = await wallet(attacker, spell(n));
    expect([spell(n), spelt.statusCode, spelt.json()]).toEqual([spell(n), 409, onExact.json()]);
    // The other way round too: the shop's first wallet on a spelling claims the path.
    const m = ++order;
    expect((await wallet(merchant, spell(m))).statusCode).toBe(200);
    const stranger = await wallet(attacker, `https://shop.io/srv${m}/ipn?order_id=${m}`);
    expect([stranger.statusCode, stranger.json().code]).toEqual([409, 'callback_registered_elsewhere']);
  });

  it("the merchant's own payout with other terms on the path gets 409 conflict, also with another query", async () => {
    const callback = nextCallback();
    expect((await wallet(merchant, callback)).statusCode).toBe(200);
    const other = await customAffiliate(merchant, `${callback}&x=1`, { merchant_fee: '0.98', affiliate_fee: '0.01' });
    expect([other.statusCode, other.json().code]).toEqual([409, 'conflict']);
  });

  it('concurrent first wallets on one path with different payout addresses and queries: one payout wins, the rest 409', async () => {
    const callback = nextCallback();
    const responses = await raceThreePayouts((i) => `${callback}&n=${i}`);
    const { rows } = await fixture.db.pool.query<{ payout_address: string }>(
      'SELECT DISTINCT payout_address FROM wallets WHERE callback_url LIKE $1',
      [`${callback}&n=%`],
    );
    expect(rows).toHaveLength(1);
    for (const [i, response] of responses.entries()) {
      const expected = racingPayouts[i % 3]!.toLowerCase() === rows[0]!.payout_address ? 200 : 409;
      expect([i, response.statusCode]).toEqual([i, expected]);
    }
  });

  it('the database refuses a wallet whose terms are not its path claim, whoever writes it (migration 017)', async () => {
    const callback = nextCallback();
    expect((await wallet(merchant, callback)).statusCode).toBe(200);
    const { rows } = await fixture.db.pool.query<{ id: string }>(
      'SELECT callback_path_id::text AS id FROM wallets WHERE callback_url = $1',
      [callback],
    );
    await expect(
      fixture.db.pool.query(
        `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token,
                              callback_path_id, callback_terms)
         VALUES (nextval('wallet_hd_index_seq'), '0x${'34'.repeat(20)}', 'x', $1, $2, '\\x01', 'tok-raw-path', $3, $1)`,
        [attacker.toLowerCase(), `${callback}&x=1`, rows[0]!.id],
      ),
    ).rejects.toMatchObject({ code: '23503', constraint: 'wallets_callback_path_claim' });
  });
});

describe('CALLBACK_OWNERSHIP=shared (a marketplace)', () => {
  it('lets another payout address have a wallet on the path with another query; the exact URL stays bound', async () => {
    const shared = await fixture.build(fixture.config({ CALLBACK_OWNERSHIP: 'shared' }));
    const get = (address: string, callback: string) =>
      shared.inject({ method: 'GET', url: '/control/wallet.php', query: { address, callback } });
    const n = ++order;
    const callback = `https://market.io/ipn?order_id=${n}`;
    expect((await get(merchant, callback)).statusCode).toBe(200);
    expect((await get(attacker, `https://market.io/ipn?order_id=${n}-seller2`)).statusCode).toBe(200);
    expect((await get(attacker, callback)).json()).toMatchObject({ code: 'callback_registered_elsewhere' });
  });

  it('is refused in production without PAYOUT_ADDRESSES, and allowed with them', () => {
    const production = { NODE_ENV: 'production', CALLBACK_OWNERSHIP: 'shared' };
    const problems = (env: Record<string, string>) => {
      try {
        fixture.config(env);
        return [];
      } catch (error) {
        return (error as { problems?: string[] }).problems ?? [];
      }
    };
    expect(problems(production)).toContainEqual(expect.stringMatching(/^CALLBACK_OWNERSHIP: shared needs PAYOUT_ADDRESSES in production/));
    expect(problems({ ...production, PAYOUT_ADDRESSES: merchant })).not.toContainEqual(expect.stringMatching(/^CALLBACK_OWNERSHIP/));
    expect(problems({ NODE_ENV: 'production' })).not.toContainEqual(expect.stringMatching(/^CALLBACK_OWNERSHIP/));
    expect(fixture.config().raw.CALLBACK_OWNERSHIP).toBe('path');
  });
});

describe('gateway callbacks release: the operator frees a callback URL', () => {
  it('releases the owner, which keeps its payout; the callback can then be registered again', async () => {
    const callback = nextCallback();
    const squatted = (await wallet(attacker, callback)).json();
    expect((await wallet(merchant, callback)).statusCode).toBe(409);

    const released = await releaseCallback([callback]);
    expect(released).toMatchObject({ code: 0 });
    expect(released.stdout).toContain(squatted.polygon_address_in);
    expect(released.stdout).toMatch(/released/);

    const shop = await wallet(merchant, callback);
    expect(shop.statusCode).toBe(200);
    expect(shop.json().polygon_address_in).not.toBe(squatted.polygon_address_in);
    const rows = await walletsOf(callback);
    expect(rows.map((row) => [row.payout_address, row.callback_released_at === null])).toEqual([
      [attacker.toLowerCase(), false],
      [merchant.toLowerCase(), true],
    ]);
    // The released wallet keeps its payout address and terms: only its callback is detached.
    expect(rows[0]!.ipn_token).toBe(squatted.ipn_token);
  });

  it('the same payout address and callback after a release get a new wallet, not the released one', async () => {
    const callback = nextCallback();
    const old = (await wallet(merchant, callback)).json();
    expect((await releaseCallback([callback])).code).toBe(0);
    const replica = await fixture.build(config);
    const fresh = (await replica.inject({ method: 'GET', url: '/control/wallet.php', query: { address: merchant, callback } })).json();
    expect(fresh.polygon_address_in).not.toBe(old.polygon_address_in);
  });

  it("frees the callback's path from a squatter: every wallet under its claim, whatever the query", async () => {
    const callback = nextCallback();
    const squatted = [(await wallet(attacker, `${callback}&a=1`)).json(), (await wallet(attacker, `${callback}&a=2`)).json()];
    expect((await wallet(merchant, callback)).statusCode).toBe(409);

    const released = await releaseCallback([callback]);
    expect(released.code).toBe(0);
    expect(released.stdout).toMatch(/released the claim on https:\/\/shop\.io\/ipn\/\d+/);
    for (const squat of squatted) expect(released.stdout).toContain(squat.polygon_address_in);
    expect((await wallet(merchant, callback)).statusCode).toBe(200);
    expect((await wallet(attacker, `${callback}&a=3`)).statusCode).toBe(409);
  });

  it('says so, with exit 1, for a callback no live wallet holds; exit 2 without one', async () => {
    const unknown = await releaseCallback(['https://shop.io/ipn/never?order_id=never']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no wallet holds/);
    expect((await releaseCallback([])).code).toBe(2);
  });
});

const releaseCallback = (args: string[]) => runGateway(['callbacks', 'release', ...args], { ...fixture.env(), LOG_LEVEL: 'warn' });
