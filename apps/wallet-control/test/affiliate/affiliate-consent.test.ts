import type { FastifyInstance } from 'fastify';
import { privateKeyToAccount } from 'viem/accounts';
import { affiliateConsentMessage as gatewayMessage } from '@gateway/domain';
import { affiliateConsentMessage as sdkMessage } from '@usdc-card-gateway/sdk';
import { consentingOwner as owner, ownerConsent } from '../support/affiliate-consent';
import { walletControlFixture } from '../support/wallet-control-fixture';

// Affiliate terms send part of a wallet's money away from its payout address: with the default
// settings (no AFFILIATE_ADDRESSES) only a signature by the payout address's owner over the exact
// terms sets them (issue 22).
const stranger = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const affiliate = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
// An affiliate that holds its key (not one of anvil's: those are this gateway's temporary wallets).
const keyedAffiliate = privateKeyToAccount(`0x${'2a'.repeat(32)}`);

const fixture = walletControlFixture('affiliate_consent');
let app: FastifyInstance;

let order = 0;
// A path of its own for each wallet: every wallet on a callback's origin and path has the terms of the first.
const nextCallback = () => `https://shop.io/ipn/consent-${++order}?order_id=consent-${order}`;
const get = (url: string, query: Record<string, string>) => app.inject({ method: 'GET', url, query });
const routes = [
  ['/control/affiliate.php', {}],
  ['/control/custom-affiliate.php', { merchant_fee: '0.98', affiliate_fee: '0.01' }],
] as const;

async function walletCount(callback: string): Promise<number> {
  const { rows } = await fixture.db.pool.query('SELECT 1 FROM wallets WHERE callback_url = $1', [callback]);
  return rows.length;
}

beforeAll(async () => {
  app = await fixture.build(fixture.config());
});

describe.each(routes)('%s', (url, fees) => {
  it("creates the wallet with the payout address owner's signature, made with the SDK, and answers its repeat", async () => {
    const query = { address: owner.address, callback: nextCallback(), affiliate, ...fees };
    const signature = await ownerConsent(query);
    const first = await get(url, { ...query, signature });
    expect(first.statusCode).toBe(200);
    expect((await get(url, { ...query, signature })).json()).toEqual(first.json());
    expect(await walletCount(query.callback)).toBe(1);
  });

  it('accepts a signature made with plain viem over the documented message', async () => {
    const query = { address: owner.address.toLowerCase(), callback: nextCallback(), affiliate, ...fees };
    const message = [
      'Card-to-USDC gateway: consent to affiliate terms (v1)',
      `payout: ${owner.address.toLowerCase()}`,
      `affiliate: ${affiliate.toLowerCase()}`,
      `merchant_fee: ${'merchant_fee' in fees ? fees.merchant_fee : '0.985'}`,
      `affiliate_fee: ${'affiliate_fee' in fees ? fees.affiliate_fee : '0.005'}`,
      `callback: ${query.callback}`,
    ].join('\n');
    const response = await get(url, { ...query, signature: await owner.signMessage({ message }) });
    expect(response.statusCode).toBe(200);
  });

  it('without consent: 403 affiliate_consent_required, quoting the message to sign and the operator pin', async () => {
    const query = { address: owner.address, callback: nextCallback(), affiliate, ...fees };
    const response = await get(url, query);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ status: 'error', code: 'affiliate_consent_required', param: 'signature' });
    expect(response.json().error).toContain('personal_sign');
    expect(response.json().error).toContain(`\\ncallback: ${query.callback}`);
    expect(response.json().error).toMatch(/AFFILIATE_ADDRESSES/);
    expect(await walletCount(query.callback)).toBe(0);
  });

  it("a stranger's signature, or the owner's over other terms: 403 affiliate_consent_invalid; not a signature: 400", async () => {
    const query = { address: owner.address, callback: nextCallback(), affiliate, ...fees };
    const byStranger = await stranger.signMessage({ message: sdkMessage(termsOf(query)) });
    const otherCallback = await ownerConsent({ ...query, callback: `${query.callback}&x=1` });
    for (const signature of [byStranger, otherCallback]) {
      const response = await get(url, { ...query, signature });
      expect([response.statusCode, response.json().code]).toEqual([403, 'affiliate_consent_invalid']);
      expect(response.json().error).toMatch(/another key, or over another message/);
    }
    const malformed = await get(url, { ...query, signature: '0x1234' });
    expect([malformed.statusCode, malformed.json().param]).toEqual([400, 'signature']);
    expect(await walletCount(query.callback)).toBe(0);
  });

  it("the affiliate's own signature over the exact message: 403 affiliate_consent_invalid, no wallet (only the payout's owner consents)", async () => {
    // The party the terms pay cannot consent to them: that was the theft of issue 22.
    const query = { address: owner.address, callback: nextCallback(), affiliate: keyedAffiliate.address, ...fees };
    const byAffiliate = await keyedAffiliate.signMessage({ message: sdkMessage(termsOf(query)) });
    const response = await get(url, { ...query, signature: byAffiliate });
    expect([response.statusCode, response.json().code, response.json().param]).toEqual([403, 'affiliate_consent_invalid', 'signature']);
    expect(await walletCount(query.callback)).toBe(0);
  });
});

it("custom-affiliate.php: the owner's consent to one split does not cover another", async () => {
  const query = { address: owner.address, callback: nextCallback(), affiliate, merchant_fee: '0.98', affiliate_fee: '0.01' };
  const signature = await ownerConsent(query);
  const response = await get('/control/custom-affiliate.php', { ...query, merchant_fee: '0.01', affiliate_fee: '0.98', signature });
  expect([response.statusCode, response.json().code]).toEqual([403, 'affiliate_consent_invalid']);
});

it("the SDK's message is the gateway's, for any spelling of the terms", () => {
  const spellings = [
    { merchantFee: '0.98', affiliateFee: '0.01', merchantFeeBps: 9_800, affiliateFeeBps: 100 },
    { merchantFee: '0.9800', affiliateFee: '0.0100', merchantFeeBps: 9_800, affiliateFeeBps: 100 },
    { merchantFee: '0.0001', affiliateFee: '0.9899', merchantFeeBps: 1, affiliateFeeBps: 9_899 },
    { merchantFee: '1.0', affiliateFee: '0', merchantFeeBps: 10_000, affiliateFeeBps: 0 },
    { merchantFee: '00.5', affiliateFee: '0.49', merchantFeeBps: 5_000, affiliateFeeBps: 4_900 },
  ];
  for (const { merchantFee, affiliateFee, merchantFeeBps, affiliateFeeBps } of spellings) {
    const callbackUrl = 'https://Shop.io:443/a/../ipn?order_id=1&x=é';
    expect(sdkMessage({ payoutAddress: owner.address, affiliateAddress: affiliate, merchantFee, affiliateFee, callbackUrl })).toBe(
      gatewayMessage({ payoutAddress: owner.address, affiliateAddress: affiliate, merchantFeeBps, affiliateFeeBps, callbackUrl }),
    );
  }
});

it('the OpenAPI document lists the signature parameter on both affiliate endpoints', async () => {
  const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
  for (const [url] of routes) {
    const parameters: Array<{ name: string; required?: boolean }> = document.paths[url].get.parameters;
    expect(parameters.find((parameter) => parameter.name === 'signature')).toMatchObject({ required: false });
  }
});

function termsOf(query: { address: string; callback: string; affiliate: string; merchant_fee?: string; affiliate_fee?: string }) {
  return {
    payoutAddress: query.address,
    affiliateAddress: query.affiliate,
    merchantFee: query.merchant_fee ?? '0.985',
    affiliateFee: query.affiliate_fee ?? '0.005',
    callbackUrl: query.callback,
  };
}
