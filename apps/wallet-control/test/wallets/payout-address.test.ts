import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '@gateway/app-testkit';
import { consentingOwner, ownerConsent } from '../support/affiliate-consent';
import { walletControlFixture } from '../support/wallet-control-fixture';

const payout = '0x52908400098527886E0F7030069857D2E4169EE7';

const fixture = walletControlFixture('payout_address');
let app: FastifyInstance;

beforeAll(async () => {
  app = await fixture.build(fixture.config());
});

const createWallet = (path: string, query: Record<string, string>) => app.inject({ method: 'GET', url: path, query });

describe('a payout address that is a temporary wallet of this gateway', () => {
  it("is refused at Create Wallet with a 400 naming address: wallet A's payouts must not land in wallet B", async () => {
    const b = (await createWallet('/control/wallet.php', { address: payout, callback: 'https://shop.io/ipn?order=b' })).json();

    for (const address of [b.polygon_address_in, b.polygon_address_in.toLowerCase()]) {
      const response = await createWallet('/control/wallet.php', { address, callback: 'https://shop.io/ipn?order=a' });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ status: 'error', code: 'invalid_parameter', param: 'address' });
      expect(response.json().error).toMatch(/temporary (receiving )?wallet of this gateway/);
    }
    const { rows } = await fixture.db.pool.query('SELECT count(*)::int AS n FROM wallets');
    expect(rows[0].n).toBe(1);
  });

  it('is refused by the affiliate variants too', async () => {
    const b = (await createWallet('/control/wallet.php', { address: payout, callback: 'https://shop.io/ipn?order=b2' })).json();
    // The operator consents to the affiliate: nobody can sign for a temporary wallet's address.
    const pinned = await fixture.build(fixture.config({ AFFILIATE_ADDRESSES: '0x000000000000000000000000000000000000bEEF' }));
    const response = await pinned.inject({
      method: 'GET',
      url: '/control/affiliate.php',
      query: {
        address: b.polygon_address_in,
        callback: 'https://shop.io/ipn?order=a2',
        affiliate: '0x000000000000000000000000000000000000bEEF',
      },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ param: 'address' });
  });

  it('leaves every other payout address alone', async () => {
    const response = await createWallet('/control/wallet.php', { address: payout, callback: 'https://shop.io/ipn?order=c' });
    expect(response.statusCode).toBe(200);
  });
});

describe('an affiliate address that is a temporary wallet of this gateway', () => {
  it('is refused with a 400 naming affiliate: its share would be settled again as a deposit, with no record', async () => {
    const b = (await createWallet('/control/wallet.php', { address: payout, callback: 'https://shop.io/ipn?order=aff-b' })).json();
    for (const [path, extra] of [
      ['/control/affiliate.php', {}],
      ['/control/custom-affiliate.php', { affiliate_fee: '0.01', merchant_fee: '0.98' }],
    ] as const) {
      const query = {
        address: consentingOwner.address,
        callback: `https://shop.io/ipn?order=aff-${path}`,
        affiliate: b.polygon_address_in.toLowerCase(),
        ...extra,
      };
      const response = await createWallet(path, { ...query, signature: await ownerConsent(query) });
      expect([path, response.statusCode]).toEqual([path, 400]);
      expect(response.json()).toMatchObject({ code: 'invalid_parameter', param: 'affiliate' });
      expect(response.json().error).toMatch(/temporary (receiving )?wallet of this gateway/);
    }
    const { rows } = await fixture.db.pool.query(
      "SELECT count(*)::int AS n FROM wallets WHERE callback_url LIKE 'https://shop.io/ipn?order=aff-/%'",
    );
    expect(rows[0].n).toBe(0);
  });
});

describe('well-known token contracts are never a payout or affiliate address', () => {
  // As on the local stack: the configured token is a test token, and Polygon's USDC contracts must
  // still be refused (funds sent to a token contract are lost).
  const NATIVE_USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
  const BRIDGED_USDC_E = '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174';
  const TEST_TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
  let local: FastifyInstance;
  // A database of its own: a database counts in one token (migration 016).
  let localDb: TestDatabase;

  beforeAll(async () => {
    localDb = await createTestDatabase('payout_address_local');
    local = await fixture.build(fixture.config({ USDC_TOKEN_ADDRESS: TEST_TOKEN, CHAIN_ID: '31337' }), { pool: localDb.pool });
  });
  afterAll(async () => {
    await local.close();
    await localDb.drop();
  });

  /** `url` with `query` on the local chain's gateway: 400 invalid_parameter naming `param`. */
  async function expectRefusedOnLocalChain(url: string, query: Record<string, string>, param: string) {
    const response = await local.inject({ method: 'GET', url, query });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_parameter', param });
    return response;
  }

  it.each([
    ['native USDC', NATIVE_USDC],
    ['native USDC, lower case', NATIVE_USDC.toLowerCase()],
    ['USDC.e', BRIDGED_USDC_E],
    ['the configured token', TEST_TOKEN],
  ])('%s as address: 400 naming address', async (_name, address) => {
    const response = await expectRefusedOnLocalChain(
      '/control/wallet.php',
      { address, callback: 'https://shop.io/ipn?order=token' },
      'address',
    );
    expect(response.json().error).toMatch(/token contract/);
  });

  it.each([
    ['native USDC', NATIVE_USDC],
    ['USDC.e', BRIDGED_USDC_E],
  ])('%s as affiliate: 400 naming affiliate', async (_name, affiliate) => {
    await expectRefusedOnLocalChain(
      '/control/affiliate.php',
      { address: payout, callback: 'https://shop.io/ipn?order=token-aff', affiliate },
      'affiliate',
    );
  });
});
