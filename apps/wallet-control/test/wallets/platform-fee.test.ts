import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { loadConfig } from '@gateway/config';
import { walletControlSettings } from '../../src/config';
import { walletControlFixture } from '../support/wallet-control-fixture';

const payout = '0x52908400098527886E0F7030069857D2E4169EE7';
const affiliate = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';

// The operator consents to the affiliate (AFFILIATE_ADDRESSES).
const fixture = walletControlFixture('platform-fee', { AFFILIATE_ADDRESSES: affiliate });
let order = 0;
// A path of its own for each wallet: every wallet on a callback's origin and path has the terms of the first.
const nextCallback = () => `https://shop.io/ipn/fee-${++order}?order_id=fee-${order}`;

async function recordedFee(callback: string): Promise<number | undefined> {
  const { rows } = await fixture.db.pool.query<{ platform_fee_bps: number }>(
    'SELECT platform_fee_bps FROM wallets WHERE callback_url = $1',
    [callback],
  );
  return rows[0]?.platform_fee_bps;
}

it('PLATFORM_FEE_BPS: 100 by default, basis points only', () => {
  const schema = Type.Pick(walletControlSettings, ['PLATFORM_FEE_BPS']);
  expect(loadConfig(schema, {})).toEqual({ PLATFORM_FEE_BPS: 100 });
  expect(loadConfig(schema, { PLATFORM_FEE_BPS: '0' })).toEqual({ PLATFORM_FEE_BPS: 0 });
  for (const bad of ['10001', '-1', 'x'])
    expect(() => loadConfig(schema, { PLATFORM_FEE_BPS: bad })).toThrow(/^invalid configuration:\n {2}- PLATFORM_FEE_BPS/);
});

describe('the platform fee is recorded on each wallet when it is created', () => {
  it('records PLATFORM_FEE_BPS as it is at creation, and a custom split as what it leaves; a later change prices only new wallets', async () => {
    const callbacks = { plain: nextCallback(), affiliate: nextCallback(), custom: nextCallback(), later: nextCallback() };
    const at250: FastifyInstance = await fixture.build(fixture.config({ PLATFORM_FEE_BPS: '250' }));
    try {
      const get = (url: string, query: Record<string, string>) => at250.inject({ method: 'GET', url, query });
      expect((await get('/control/wallet.php', { address: payout, callback: callbacks.plain })).statusCode).toBe(200);
      expect((await get('/control/affiliate.php', { address: payout, callback: callbacks.affiliate, affiliate })).statusCode).toBe(200);
      const custom = { address: payout, callback: callbacks.custom, affiliate, affiliate_fee: '0.0125', merchant_fee: '0.9625' };
      expect((await get('/control/custom-affiliate.php', custom)).statusCode).toBe(200);
    } finally {
      await at250.close();
    }
    expect(await recordedFee(callbacks.plain)).toBe(250);
    expect(await recordedFee(callbacks.affiliate)).toBe(250);
    expect(await recordedFee(callbacks.custom)).toBe(250);

    const at100 = await fixture.build(fixture.config({ PLATFORM_FEE_BPS: '100' }));
    try {
      expect(
        (await at100.inject({ method: 'GET', url: '/control/wallet.php', query: { address: payout, callback: callbacks.later } }))
          .statusCode,
      ).toBe(200);
    } finally {
      await at100.close();
    }
    expect(await recordedFee(callbacks.later)).toBe(100);
    expect(await recordedFee(callbacks.plain)).toBe(250);
  });
});
