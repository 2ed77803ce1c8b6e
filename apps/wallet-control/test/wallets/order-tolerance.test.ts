import type { FastifyInstance } from 'fastify';
import { walletControlFixture } from '../support/wallet-control-fixture';

const payout = '0x52908400098527886E0F7030069857D2E4169EE7';

const fixture = walletControlFixture('order_tolerance');
let app: FastifyInstance;

function createWallet(query: Record<string, string>) {
  return app.inject({ method: 'GET', url: '/control/wallet.php', query: { address: payout, ...query } });
}

async function toleranceOf(polygonAddress: string): Promise<number | null> {
  const { rows } = await fixture.db.pool.query('SELECT order_tolerance_bps FROM wallets WHERE polygon_address = $1', [
    polygonAddress.toLowerCase(),
  ]);
  return rows[0].order_tolerance_bps;
}

beforeAll(async () => {
  app = await fixture.build(fixture.config());
});

describe("Create Wallet's optional order_tolerance_bps", () => {
  it("records the merchant's own tolerance with the wallet", async () => {
    const response = await createWallet({ callback: 'https://shop.io/ipn?order=t1', order_tolerance_bps: '50' });
    expect(response.statusCode).toBe(200);
    expect(await toleranceOf(response.json().polygon_address_in)).toBe(50);
  });

  it('records none when the plugin sends none, as the PayGate plugins do', async () => {
    const response = await createWallet({ callback: 'https://shop.io/ipn?order=t2' });
    expect(await toleranceOf(response.json().polygon_address_in)).toBeNull();
  });

  it('keeps the tolerance of the wallet as first created when the same pair asks again with another', async () => {
    const first = await createWallet({ callback: 'https://shop.io/ipn?order=t3', order_tolerance_bps: '10' });
    const again = await createWallet({ callback: 'https://shop.io/ipn?order=t3', order_tolerance_bps: '900' });
    expect(again.json().polygon_address_in).toBe(first.json().polygon_address_in);
    expect(await toleranceOf(first.json().polygon_address_in)).toBe(10);
  });

  it.each(['5001', '-5', '1.5', 'abc', ''])('refuses %j with a 400 naming the parameter', async (value) => {
    const response = await createWallet({ callback: 'https://shop.io/ipn?order=t4', order_tolerance_bps: value });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error', code: 'invalid_parameter', param: 'order_tolerance_bps' });
    expect(response.json().error).toMatch(/^order_tolerance_bps must be a whole number of basis points from 0 to 5000/);
  });
});
