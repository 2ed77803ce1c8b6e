import type { FastifyInstance } from 'fastify';
import { walletControlFixture } from '../support/wallet-control-fixture';

const payout = '0x52908400098527886E0F7030069857D2E4169EE7';

const fixture = walletControlFixture('customer_pays_fee');
let app: FastifyInstance;

function createWallet(query: Record<string, string>) {
  return app.inject({ method: 'GET', url: '/control/wallet.php', query: { address: payout, ...query } });
}

async function customerPaysFeeOf(polygonAddress: string): Promise<boolean | null> {
  const { rows } = await fixture.db.pool.query('SELECT customer_pays_fee FROM wallets WHERE polygon_address = $1', [
    polygonAddress.toLowerCase(),
  ]);
  return rows[0].customer_pays_fee;
}

beforeAll(async () => {
  app = await fixture.build(fixture.config());
});

describe("Create Wallet's optional customer_pays_fee", () => {
  it.each([
    ['1', true],
    ['0', false],
  ])('records customer_pays_fee=%s with the wallet', async (value, recorded) => {
    const response = await createWallet({ callback: `https://shop.io/ipn?order=f${value}`, customer_pays_fee: value });
    expect(response.statusCode).toBe(200);
    expect(await customerPaysFeeOf(response.json().polygon_address_in)).toBe(recorded);
  });

  it("records none when the plugin sends none, as the PayGate plugins do: the operator's setting decides", async () => {
    const response = await createWallet({ callback: 'https://shop.io/ipn?order=f2' });
    expect(await customerPaysFeeOf(response.json().polygon_address_in)).toBeNull();
  });

  it('keeps the choice of the wallet as first created when the same pair asks again with another', async () => {
    const first = await createWallet({ callback: 'https://shop.io/ipn?order=f3', customer_pays_fee: '1' });
    const again = await createWallet({ callback: 'https://shop.io/ipn?order=f3', customer_pays_fee: '0' });
    expect(again.json().polygon_address_in).toBe(first.json().polygon_address_in);
    expect(await customerPaysFeeOf(first.json().polygon_address_in)).toBe(true);
  });

  it.each(['yes', 'true', '2', '', ' 1'])('refuses %j with a 400 naming the parameter', async (value) => {
    const response = await createWallet({ callback: 'https://shop.io/ipn?order=f4', customer_pays_fee: value });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error', code: 'invalid_parameter', param: 'customer_pays_fee' });
    expect(response.json().error).toMatch(/^customer_pays_fee must be 1 \(the customer pays the provider's fees on top/);
  });

  it('is taken by affiliate.php too, whose wallets share the parameter', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/control/affiliate.php',
      query: { address: payout, callback: 'https://shop.io/ipn?order=f5', affiliate: 'nonsense', customer_pays_fee: 'x' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().param).toBe('customer_pays_fee');
  });
});
