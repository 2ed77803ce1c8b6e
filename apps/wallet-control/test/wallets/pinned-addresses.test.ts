import type { FastifyInstance } from 'fastify';
import { ConfigError } from '@gateway/config';
import { consentingOwner, ownerConsent } from '../support/affiliate-consent';
import { walletControlFixture } from '../support/wallet-control-fixture';

// A gateway run for the operator's own shops pins the payout (and affiliate) addresses: nobody
// else's payout can then be registered, so nobody can register a shop's callback, present or
// future, with a payout address of their own (issue 17, section 1).
const shop = '0x52908400098527886E0F7030069857D2E4169EE7';
const secondShop = '0x000000000000000000000000000000000000bEEF';
const stranger = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const partner = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

const fixture = walletControlFixture('pinned');
let pinned: FastifyInstance;
let order = 0;
// A path of its own for each wallet: every wallet on a callback's origin and path has the terms of the first.
const nextCallback = () => `https://shop.io/ipn/pin-${++order}?order_id=pin-${order}`;
const get = (app: FastifyInstance, url: string, query: Record<string, string>) => app.inject({ method: 'GET', url, query });

beforeAll(async () => {
  pinned = await fixture.build(fixture.config({ PAYOUT_ADDRESSES: `${shop}, ${secondShop.toLowerCase()}`, AFFILIATE_ADDRESSES: partner }));
});

describe('PAYOUT_ADDRESSES', () => {
  it('Create Wallet accepts the pinned addresses (any case) and refuses any other with 403 naming address', async () => {
    expect((await get(pinned, '/control/wallet.php', { address: shop.toLowerCase(), callback: nextCallback() })).statusCode).toBe(200);
    expect((await get(pinned, '/control/wallet.php', { address: secondShop, callback: nextCallback() })).statusCode).toBe(200);
    const refused = await get(pinned, '/control/wallet.php', { address: stranger, callback: nextCallback() });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ status: 'error', code: 'address_not_allowed', param: 'address' });
    expect(refused.json().error).toMatch(/PAYOUT_ADDRESSES/);
  });

  it('the affiliate routes refuse any other payout address too', async () => {
    for (const [url, extra] of [
      ['/control/affiliate.php', {}],
      ['/control/custom-affiliate.php', { affiliate_fee: '0.01', merchant_fee: '0.98' }],
    ] as const) {
      const response = await get(pinned, url, { address: stranger, callback: nextCallback(), affiliate: partner, ...extra });
      expect([url, response.statusCode, response.json().param]).toEqual([url, 403, 'address']);
    }
  });
});

describe('AFFILIATE_ADDRESSES', () => {
  it('the affiliate routes accept the pinned affiliates and refuse any other with 403 naming affiliate', async () => {
    expect((await get(pinned, '/control/affiliate.php', { address: shop, callback: nextCallback(), affiliate: partner })).statusCode).toBe(
      200,
    );
    for (const [url, extra] of [
      ['/control/affiliate.php', {}],
      ['/control/custom-affiliate.php', { affiliate_fee: '0.98', merchant_fee: '0.01' }],
    ] as const) {
      // A pin leaves out every other affiliate, even one the payout address's owner signed for.
      const response = await get(pinned, url, {
        address: shop,
        callback: nextCallback(),
        affiliate: stranger,
        signature: `0x${'11'.repeat(65)}`,
        ...extra,
      });
      expect([url, response.statusCode]).toEqual([url, 403]);
      expect(response.json()).toMatchObject({ code: 'address_not_allowed', param: 'affiliate' });
      expect(response.json().error).toMatch(/AFFILIATE_ADDRESSES/);
    }
  });
});

describe('merchant_fee=0 with a pinned affiliate', () => {
  it('custom-affiliate.php refuses it with 400 naming merchant_fee: the pin spares consent, never the merchant leg', async () => {
    // A wallet paying its payout address nothing would still call the shop back "paid".
    const callback = nextCallback();
    const response = await get(pinned, '/control/custom-affiliate.php', {
      address: shop,
      callback,
      affiliate: partner,
      merchant_fee: '0',
      affiliate_fee: '0.99',
    });
    expect([response.statusCode, response.json().code, response.json().param]).toEqual([400, 'invalid_parameter', 'merchant_fee']);
    expect(response.json().error).toMatch(/^merchant_fee must be more than 0/);
    const { rows } = await fixture.db.pool.query('SELECT 1 FROM wallets WHERE callback_url = $1', [callback]);
    expect(rows).toEqual([]);
  });
});

describe('AFFILIATE_WALLETS=off', () => {
  it('turns both affiliate routes off with 403 naming affiliate; Create Wallet keeps working', async () => {
    const off = await fixture.build(fixture.config({ PAYOUT_ADDRESSES: shop, AFFILIATE_WALLETS: 'off' }));
    for (const [url, extra] of [
      ['/control/affiliate.php', {}],
      ['/control/custom-affiliate.php', { affiliate_fee: '0.99', merchant_fee: '0' }],
    ] as const) {
      const response = await get(off, url, { address: shop, callback: nextCallback(), affiliate: partner, ...extra });
      expect([url, response.statusCode]).toEqual([url, 403]);
      expect(response.json()).toMatchObject({ code: 'affiliate_disabled', param: 'affiliate' });
    }
    expect((await get(off, '/control/wallet.php', { address: shop, callback: nextCallback() })).statusCode).toBe(200);
  });
});

describe('open mode (the default)', () => {
  it('accepts any payout address, and any affiliate its owner consents to', async () => {
    const open = await fixture.build();
    expect((await get(open, '/control/wallet.php', { address: stranger, callback: nextCallback() })).statusCode).toBe(200);
    const query = { address: consentingOwner.address, callback: nextCallback(), affiliate: stranger };
    expect((await get(open, '/control/affiliate.php', query)).json()).toMatchObject({ code: 'affiliate_consent_required' });
    expect((await get(open, '/control/affiliate.php', { ...query, signature: await ownerConsent(query) })).statusCode).toBe(200);
  });
});

describe('the settings are checked at boot', () => {
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      fixture.config(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    return [];
  };

  it('refuses an entry that is not an address, the zero address or a token contract, naming the setting', () => {
    expect(problemsOf({ PAYOUT_ADDRESSES: `${shop},0x1234` })).toEqual([expect.stringMatching(/^PAYOUT_ADDRESSES: .*0x1234/)]);
    expect(problemsOf({ PAYOUT_ADDRESSES: '0x0000000000000000000000000000000000000000' })).toEqual([
      expect.stringMatching(/^PAYOUT_ADDRESSES: .*zero address/),
    ]);
    expect(problemsOf({ AFFILIATE_ADDRESSES: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' })).toEqual([
      expect.stringMatching(/^AFFILIATE_ADDRESSES: .*token contract/),
    ]);
    expect(problemsOf({ PAYOUT_ADDRESSES: shop, AFFILIATE_ADDRESSES: partner })).toEqual([]);
  });
});
