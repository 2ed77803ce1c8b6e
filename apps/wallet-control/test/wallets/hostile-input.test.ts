import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ConfigError } from '@gateway/config';
import { parsePaymentRequest, type ProviderCatalogue } from '@gateway/domain';
import { walletControlFixture } from '../support/wallet-control-fixture';

const payout = '0x52908400098527886E0F7030069857D2E4169EE7';
const affiliate = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';

// The operator consents to the affiliate (AFFILIATE_ADDRESSES), so hostile input meets the rest of the rules.
const fixture = walletControlFixture('hostile', { AFFILIATE_ADDRESSES: affiliate });
// Process Payment's catalogue, as far as this test needs it: one provider.
const moonpayTerms = {
  id: 'moonpay',
  displayName: 'MoonPay',
  currency: 'any',
  minimum: '20',
  minimumCurrency: 'USD',
  fees: { minBps: 350, maxBps: 450 },
} as const;
const ONLY_MOONPAY: ProviderCatalogue = { offered: [moonpayTerms], describe: () => moonpayTerms, notOfferedReason: () => undefined };
let app: FastifyInstance;

let order = 0;
// A path of its own for each wallet: every wallet on a callback's origin and path has the terms of the first.
const nextCallback = (base = 'https://shop.io/ipn') => `${base}/h-${++order}?order_id=h-${order}`;
const createWallet = (callback: string, on = app) =>
  on.inject({ method: 'GET', url: '/control/wallet.php', query: { address: payout, callback } });

/** Both affiliate routes refuse `callback` with a 400 naming it, as wallet.php does. */
async function expectAffiliateRoutesRefuse(callback: string, on = app): Promise<void> {
  for (const url of ['/control/affiliate.php', '/control/custom-affiliate.php']) {
    const response = await on.inject({
      method: 'GET',
      url,
      query: { address: payout, callback, affiliate, affiliate_fee: '0.01', merchant_fee: '0.98' },
    });
    expect([url, response.statusCode, response.json().param]).toEqual([url, 400, 'callback']);
  }
}

beforeAll(async () => {
  app = await fixture.build();
});

describe('a callback with a control character or whitespace', () => {
  it.each([
    ['a NUL at the end (the probe)', 'https://shop.io/\u0000'],
    ['a NUL in a parameter', 'https://shop.io/ipn?order=1\u0000'],
    ['a line feed', 'https://shop.io/ipn?order=1\n'],
    ['a carriage return', 'https://shop.io/ipn\r?order=1'],
    ['a tab', '\thttps://shop.io/ipn?order=1'],
    ['a space', 'https://shop.io/ipn?note=a b'],
    ['DEL', 'https://shop.io/ipn?order=1\u007f'],
    ['a C1 control (NEL)', 'https://shop.io/ipn?order=1\u0085'],
    ['a no-break space', 'https://shop.io/ipn?order=1\u00a0'],
    ['a line separator', 'https://shop.io/ipn?order=1\u2028'],
    ['a byte order mark', 'https://shop.io/ipn?order=1\ufeff'],
  ])('%s: 400 naming callback, nothing written', async (_name, callback) => {
    const count = async () => (await fixture.db.pool.query('SELECT count(*)::int AS n FROM wallets')).rows[0].n as number;
    const before = await count();
    const response = await createWallet(callback);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error', code: 'invalid_parameter', param: 'callback' });
    expect(response.json().error).toMatch(/control character or whitespace/);
    expect(await count()).toBe(before);
  });

  it('the same on the affiliate routes', async () => {
    await expectAffiliateRoutesRefuse('https://shop.io/\u0000');
  });

  it('40 honest requests beside one NUL request, three rounds: every honest one gets its wallet, the NUL one a 400', async () => {
    for (let round = 0; round < 3; round += 1) {
      const honest = Array.from({ length: 40 }, () => nextCallback());
      const responses = await Promise.all(
        [...honest.slice(0, 20), 'https://shop.io/\u0000', ...honest.slice(20)].map((callback) => createWallet(callback)),
      );
      const statuses = responses.map((r) => r.statusCode);
      expect(statuses.filter((s) => s === 200)).toHaveLength(40);
      expect(statuses[20]).toBe(400);
    }
  });
});

describe('a row PostgreSQL refuses fails alone, the rest of its batch is answered', () => {
  beforeAll(async () => {
    // A row that passes every check of the API and that the database still refuses.
    await fixture.db.pool.query(
      `ALTER TABLE wallets ADD CONSTRAINT test_refuses_marked CHECK (position('refused-by-db' in callback_url) = 0)`,
    );
  });
  afterAll(async () => {
    await fixture.db.pool.query('ALTER TABLE wallets DROP CONSTRAINT test_refuses_marked');
  });

  it('40 honest requests beside one the database refuses, three rounds: 40 wallets, one 500 of its own', async () => {
    for (let round = 0; round < 3; round += 1) {
      const honest = Array.from({ length: 40 }, () => nextCallback());
      const refused = nextCallback('https://shop.io/refused-by-db');
      const responses = await Promise.all([...honest.slice(0, 20), refused, ...honest.slice(20)].map((callback) => createWallet(callback)));
      const statuses = responses.map((r) => r.statusCode);
      expect(statuses.filter((s) => s === 200)).toHaveLength(40);
      expect(statuses[20]).toBe(500);
      expect(responses[20]!.json()).toMatchObject({ status: 'error', code: 'internal_error' });
      const { rows } = await fixture.db.pool.query('SELECT count(*)::int AS n FROM wallets WHERE callback_url = ANY($1::text[])', [honest]);
      expect(rows[0].n).toBe(40);
    }
  });
});

describe('callbacks the callback-worker would always refuse', () => {
  const refused: Array<[string, RegExp]> = [
    ['http://127.0.0.1/ipn?order=1', /loopback/],
    ['http://0x7f.1/ipn?order=1', /127\.0\.0\.1.*loopback/],
    ['http://2130706433/ipn?order=1', /127\.0\.0\.1.*loopback/],
    ['http://017700000001/ipn?order=1', /loopback/],
    ['http://127.1/ipn?order=1', /loopback/],
    ['http://[::ffff:127.0.0.1]/ipn?order=1', /loopback/],
    ['http://[::1]/ipn?order=1', /loopback/],
    ['http://[::7f00:1]/ipn?order=1', /IPv4-compatible/],
    ['http://0.0.0.0/ipn?order=1', /unspecified/],
    ['http://[::]/ipn?order=1', /unspecified/],
    ['http://169.254.169.254/latest/meta-data/?order=1', /linkLocal/],
    ['http://10.0.0.5/ipn?order=1', /private/],
    ['http://192.168.1.10/ipn?order=1', /private/],
    ['http://100.64.0.1/ipn?order=1', /carrierGradeNat/],
    ['http://[fe80::1]/ipn?order=1', /linkLocal/],
    ['http://[fd00::1]/ipn?order=1', /uniqueLocal/],
    ['http://224.0.0.1/ipn?order=1', /multicast/],
    ['http://255.255.255.255/ipn?order=1', /broadcast/],
    ['http://[64:ff9b::7f00:1]/ipn?order=1', /rfc6052/],
    ['https://shop.io:0/ipn?order=1', /port 0/],
    ['https://93.184.216.34:0/ipn?order=1', /port 0/],
  ];

  it.each(refused)('%s: 400 naming callback, with the reason', async (callback, reason) => {
    const response = await createWallet(callback);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_parameter', param: 'callback' });
    expect(response.json().error).toMatch(reason);
  });

  it('also on the affiliate routes', async () => {
    await expectAffiliateRoutesRefuse('http://169.254.169.254/');
  });

  it('accepts public addresses and ordinary ports', async () => {
    for (const callback of [
      'https://93.184.216.34/ipn?order=pub',
      'https://[2606:4700:4700::1111]/ipn?order=pub',
      'https://shop.io:8443/ipn?order=pub',
    ]) {
      expect([callback, (await createWallet(callback)).statusCode]).toEqual([callback, 200]);
    }
  });

  it('locally (CALLBACK_ALLOW_TEST_DOMAINS) loopback is allowed, other internal ranges and port 0 are not', async () => {
    const local = await fixture.build(fixture.config({ CALLBACK_ALLOW_TEST_DOMAINS: 'true' }));
    for (const callback of [
      'http://127.0.0.1:3400/ipn?order=local',
      'http://[::1]:3400/ipn?order=local',
      'http://localhost:3400/ipn?order=local',
    ]) {
      expect([callback, (await createWallet(callback, local)).statusCode]).toEqual([callback, 200]);
    }
    for (const callback of ['http://10.0.0.5/ipn?order=local', 'http://169.254.169.254/', 'http://127.0.0.1:0/ipn?order=local']) {
      expect([callback, (await createWallet(callback, local)).statusCode]).toEqual([callback, 400]);
    }
  });

  it('CALLBACK_ALLOWED_CIDRS exempts the ranges the callback-worker is told to exempt', async () => {
    const exempt = await fixture.build(fixture.config({ CALLBACK_ALLOWED_CIDRS: '10.20.0.0/16,::ffff:10.30.0.0/112' }));
    for (const callback of ['http://10.20.0.5/ipn?order=cidr', 'http://10.30.0.5/ipn?order=cidr']) {
      expect([callback, (await createWallet(callback, exempt)).statusCode]).toEqual([callback, 200]);
    }
    expect((await createWallet('http://10.21.0.5/ipn?order=cidr', exempt)).statusCode).toBe(400);
  });

  it("CALLBACK_ALLOWED_CIDRS follows the callback-worker's production rules", () => {
    const problemsOf = (env: Record<string, string>): string[] => {
      try {
        fixture.config(env);
      } catch (error) {
        if (error instanceof ConfigError) return error.problems.filter((problem) => problem.startsWith('CALLBACK_ALLOWED_CIDRS'));
        throw error;
      }
      return [];
    };
    for (const cidrs of ['127.0.0.0/8', '0.0.0.0/32', '::/128', '::7f00:1/128', '::ffff:127.0.0.1/128', '169.254.169.254/32']) {
      expect([cidrs, problemsOf({ NODE_ENV: 'production', CALLBACK_ALLOWED_CIDRS: cidrs })]).toEqual([
        cidrs,
        [expect.stringMatching(/refused in production/)],
      ]);
    }
    expect(problemsOf({ NODE_ENV: 'production', CALLBACK_ALLOWED_CIDRS: '10.20.0.0/16' })).toEqual([]);
    expect(problemsOf({ CALLBACK_ALLOWED_CIDRS: 'localhost' })).toEqual([expect.stringMatching(/not a CIDR range/)]);
    expect(problemsOf({ CALLBACK_ALLOWED_CIDRS: '0.0.0.0/32' })).toEqual([]);
  });
});

describe('the answer holds ipn_token and address_in: never cached', () => {
  it.each([
    ['/control/wallet.php', {}],
    ['/control/affiliate.php', { affiliate }],
    ['/control/custom-affiliate.php', { affiliate, affiliate_fee: '0.01', merchant_fee: '0.98' }],
  ])('%s answers Cache-Control: no-store, for a new wallet and for a repeat', async (url, extra) => {
    const query = { address: payout, callback: nextCallback(), ...extra };
    for (let i = 0; i < 2; i += 1) {
      const response = await app.inject({ method: 'GET', url, query });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
    }
  });
});

describe('a repeat answers an address_in sealed with the current key', () => {
  const k1 = `k1:${randomBytes(32).toString('base64')}`;
  const k2 = `k2:${randomBytes(32).toString('base64')}`;

  it.each([
    ['/control/wallet.php', {}],
    ['/control/affiliate.php', { affiliate }],
    ['/control/custom-affiliate.php', { affiliate, affiliate_fee: '0.01', merchant_fee: '0.98' }],
  ])('%s: created under k1, rotated to k2,k1, then k1 retired: the repeat still opens in Process Payment', async (url, extra) => {
    const underK1 = await fixture.build(fixture.config({ ADDRESS_IN_KEYS: k1 }));
    const rotating = await fixture.build(fixture.config({ ADDRESS_IN_KEYS: `${k2},${k1}` }));
    const retired = fixture.config({ ADDRESS_IN_KEYS: k2 });
    const underK2 = await fixture.build(retired);
    const query = { address: payout, callback: nextCallback(), ...extra };

    const created = (await underK1.inject({ method: 'GET', url, query })).json();
    expect(created.address_in).toMatch(/^k1\./);

    const duringRotation = (await rotating.inject({ method: 'GET', url, query })).json();
    expect(duringRotation).toMatchObject({ polygon_address_in: created.polygon_address_in, ipn_token: created.ipn_token });
    expect(duringRotation.address_in).toMatch(/^k2\./);

    const afterRetirement = (await underK2.inject({ method: 'GET', url, query })).json();
    expect(afterRetirement).toMatchObject({ polygon_address_in: created.polygon_address_in, ipn_token: created.ipn_token });
    // What Process Payment does with the address parameter, with the keys it now has.
    const processPayment = (address: string) =>
      parsePaymentRequest(
        { address, amount: '25', provider: 'moonpay', email: 'jane@shop.io', currency: 'USD' },
        { keys: retired.keys, rates: new Map(), providers: ONLY_MOONPAY },
      );
    expect(processPayment(afterRetirement.address_in).temporaryAddress).toBe(created.polygon_address_in.toLowerCase());
    expect(processPayment(duringRotation.address_in).temporaryAddress).toBe(created.polygon_address_in.toLowerCase());
    expect(() => processPayment(created.address_in)).toThrow(/not an address_in issued by this gateway/);
  });

  it('a repeat under the key that sealed it answers the same address_in, byte for byte', async () => {
    const callback = nextCallback();
    const first = (await createWallet(callback)).json();
    expect((await createWallet(callback)).json()).toEqual(first);
  });
});

describe('production requires https callbacks', () => {
  // An http callback travels in clear: whoever sees it can replay it (issue 17, section 4). The
  // production app is this file's app with NODE_ENV=production (its other production settings,
  // the real xpub and the published keys, are checked at boot and play no part here).
  const production = async () => {
    const config = fixture.config();
    return fixture.build({ ...config, raw: { ...config.raw, NODE_ENV: 'production' } });
  };

  it('refuses an http callback with a 400 naming callback, on every Create Wallet route', async () => {
    const app = await production();
    const callback = 'http://shop.io/ipn?order_id=plain';
    const response = await createWallet(callback, app);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_parameter', param: 'callback' });
    expect(response.json().error).toMatch(/must use https in production/);
    await expectAffiliateRoutesRefuse(callback, app);
    expect((await createWallet('https://shop.io/ipn?order_id=tls', app)).statusCode).toBe(200);
  });

  it('outside production http stays allowed (the local stack calls its demo merchant over http on loopback)', async () => {
    expect((await createWallet(nextCallback('http://shop.io/ipn'))).statusCode).toBe(200);
  });
});
