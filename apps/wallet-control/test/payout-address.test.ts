import type { FastifyInstance } from 'fastify';
import { walletControlFixture } from './support/wallet-control-fixture';

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
    const response = await createWallet('/control/affiliate.php', {
      address: b.polygon_address_in,
      callback: 'https://shop.io/ipn?order=a2',
      affiliate: '0x000000000000000000000000000000000000bEEF',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ param: 'address' });
  });

  it('leaves every other payout address alone', async () => {
    const response = await createWallet('/control/wallet.php', { address: payout, callback: 'https://shop.io/ipn?order=c' });
    expect(response.statusCode).toBe(200);
  });
});
