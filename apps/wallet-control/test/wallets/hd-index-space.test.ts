import type { FastifyInstance } from 'fastify';
import { walletControlFixture } from '../support/wallet-control-fixture';

// Temporary wallets are the non-hardened children 0 … 2^31 − 1 of the xpub: once the sequence
// passes the last one Create Wallet can make no more. Nothing said how much of it was used
// (issue 17, section 4); a gauge does now, and infra/prometheus/rules/wallet-control.yml alerts on it.
const fixture = walletControlFixture('hd_space', { HD_INDEX_RESERVE_BATCH: '10' });
let app: FastifyInstance;

beforeAll(async () => {
  app = await fixture.build();
});

async function gauge(): Promise<number | undefined> {
  const metric = (await app.metrics.getSingleMetric('wallet_control_hd_index_space_used_ratio')?.get())?.values[0]?.value;
  return metric;
}

it('reports the share of the HD index space the sequence has handed out', async () => {
  await fixture.db.pool.query("SELECT setval('wallet_hd_index_seq', 1610612736)"); // 3/4 of 2^31
  const response = await app.inject({
    method: 'GET',
    url: '/control/wallet.php',
    query: { address: '0x52908400098527886E0F7030069857D2E4169EE7', callback: 'https://shop.io/ipn?order_id=hd' },
  });
  expect(response.statusCode).toBe(200);
  const used = await gauge();
  // The batch reserved: indexes 1610612737 … 1610612746, the highest of them counted as used.
  expect(used).toBeCloseTo((1610612746 + 1) / 2 ** 31, 9);
  expect(await app.metrics.metrics()).toMatch(/wallet_control_hd_index_space_used_ratio\{service="wallet-control"\} 0\.75/);
});
