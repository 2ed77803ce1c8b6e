import { createHash } from 'node:crypto';
import { callbackOrigin } from '../src/callback-url';
import {
  CLAIM_MEMORY_MS,
  countersCharged,
  countersRead,
  newWalletCounters,
  newWalletDecision,
  newWalletRefusalReason,
  type NewWalletCounter,
  type NewWalletLimits,
} from '../src/new-wallet-limits';

const open: NewWalletLimits = {
  payoutQuota: { max: 3, windowSeconds: 600 },
  perMinute: 20,
  perClientPerMinute: 2,
  exemptClaimedOrigins: false,
};
const pinned: NewWalletLimits = { ...open, exemptClaimedOrigins: true };
const shop = {
  payoutAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
  callbackUrl: 'https://shop.io/ipn?order=1',
  client: '198.51.100.20',
};
// 10:00:30 into a 600 s window that started at 10:00:00.
const now = Date.UTC(2026, 10, 28, 10, 0, 30);

/** A count per counter, by the start of its name; the others 0. */
const counts =
  (values: Partial<Record<'payout-quota' | 'new-wallets-client' | 'new-wallets' | 'payout-quota-claim', number>>) =>
  (counter: NewWalletCounter) =>
    values[counter.name.slice(0, counter.name.indexOf(':')) as keyof typeof values] ?? 0;

describe('the callback origin', () => {
  it('is the canonical scheme, host and port: case, default port and a trailing dot do not make another origin', () => {
    expect(callbackOrigin('https://shop.io/ipn?order=1')).toBe('https://shop.io');
    expect(callbackOrigin('HTTPS://Shop.IO.:443/other')).toBe('https://shop.io');
    expect(callbackOrigin('https://shop.io:8443/ipn')).toBe('https://shop.io:8443');
    expect(callbackOrigin('http://shop.io/ipn')).toBe('http://shop.io');
  });
});

describe('the counters of a request for a new wallet', () => {
  it('counts the quota per payout address (any case) and origin, the budget per client, the ceiling per minute', () => {
    const counters = newWalletCounters(shop, open, now);
    expect(counters.origin).toBe('https://shop.io');
    const sameShop = newWalletCounters(
      { ...shop, payoutAddress: shop.payoutAddress.toLowerCase(), callbackUrl: 'https://SHOP.io/x' },
      open,
      now,
    );
    expect(sameShop.payoutOrigin).toEqual(counters.payoutOrigin);
    const stranger = newWalletCounters({ ...shop, callbackUrl: 'https://stranger.io/cb', client: '203.0.113.1' }, open, now);
    expect(stranger.payoutOrigin.name).not.toBe(counters.payoutOrigin.name);
    expect(stranger.client.name).not.toBe(counters.client.name);
    expect(stranger.gateway).toEqual(counters.gateway);
    expect(counters.payoutOrigin.endsAt).toBe(Date.UTC(2026, 10, 28, 10, 10, 0));
    expect(counters.client.endsAt).toBe(Date.UTC(2026, 10, 28, 10, 1, 0));
    expect(counters.gateway.endsAt).toBe(Date.UTC(2026, 10, 28, 10, 1, 0));
  });

  it('names the quota by the payout address in lower case and a hash of the origin (22 base64url characters), never the origin itself', () => {
    const hash = createHash('sha256').update('https://shop.io').digest('base64url').slice(0, 22);
    expect(newWalletCounters(shop, pinned, now)).toMatchObject({
      payoutOrigin: { name: `payout-quota:0x52908400098527886e0f7030069857d2e4169ee7:${hash}:${Math.floor(now / 600_000)}` },
      claim: { name: `payout-quota-claim:0x52908400098527886e0f7030069857d2e4169ee7:${hash}` },
    });
    expect(CLAIM_MEMORY_MS).toBe(86_400_000);
  });

  it('reads and keeps a claim only when claimed origins are exempt (PAYOUT_ADDRESSES), for a day after the last wallet', () => {
    expect(newWalletCounters(shop, open, now).claim).toBeUndefined();
    expect(countersRead(newWalletCounters(shop, open, now))).toHaveLength(3);
    const counters = newWalletCounters(shop, pinned, now);
    expect(counters.claim?.endsAt).toBe(now + CLAIM_MEMORY_MS);
    expect(countersRead(counters)).toHaveLength(4);
  });
});

describe('the decision on a new wallet', () => {
  const decide = (limits: NewWalletLimits, values: Parameters<typeof counts>[0]) =>
    newWalletDecision(newWalletCounters(shop, limits, now), counts(values), limits, now);

  it('admits under every limit', () => {
    expect(decide(open, { 'payout-quota': 2, 'new-wallets-client': 1, 'new-wallets': 19 })).toEqual({ refusal: undefined, claimed: false });
  });

  it('refuses the quota first, then the client budget, then the ceiling, each with the rest of its window', () => {
    const all = decide(open, { 'payout-quota': 3, 'new-wallets-client': 2, 'new-wallets': 20 }).refusal;
    expect([all?.code, all?.retryAfterSeconds]).toEqual(['payout_quota_exceeded', 570]);
    const client = decide(open, { 'new-wallets-client': 2, 'new-wallets': 20 }).refusal;
    expect([client?.code, client?.retryAfterSeconds]).toEqual(['new_wallet_client_limit', 30]);
    const ceiling = decide(open, { 'new-wallets': 20 }).refusal;
    expect([ceiling?.code, ceiling?.retryAfterSeconds]).toEqual(['new_wallet_ceiling', 30]);
  });

  it('in open mode a claim counts for nothing: an origin anyone can claim cannot pass the ceiling', () => {
    expect(decide(open, { 'new-wallets': 20, 'payout-quota-claim': 5 }).refusal?.code).toBe('new_wallet_ceiling');
  });

  it('with PAYOUT_ADDRESSES, a claimed origin passes the client budget and the ceiling, never the quota', () => {
    expect(decide(pinned, { 'new-wallets-client': 2, 'new-wallets': 20, 'payout-quota-claim': 1 })).toEqual({
      refusal: undefined,
      claimed: true,
    });
    expect(decide(pinned, { 'payout-quota': 3, 'payout-quota-claim': 1 }).refusal?.code).toBe('payout_quota_exceeded');
    expect(decide(pinned, { 'new-wallets': 20 })).toMatchObject({ refusal: { code: 'new_wallet_ceiling' }, claimed: false });
  });

  it('charges a new wallet to every counter, a claimed origin only to its quota and claim', () => {
    const names = (limits: NewWalletLimits, claimed: boolean) =>
      countersCharged(newWalletCounters(shop, limits, now), claimed).map((counter) => counter.name.slice(0, counter.name.indexOf(':')));
    expect(names(open, false)).toEqual(['payout-quota', 'new-wallets-client', 'new-wallets']);
    expect(names(pinned, false)).toEqual(['payout-quota', 'payout-quota-claim', 'new-wallets-client', 'new-wallets']);
    expect(names(pinned, true)).toEqual(['payout-quota', 'payout-quota-claim']);
  });

  it("names each refusal's reason for the metric", () => {
    const reasons = [
      decide(open, { 'payout-quota': 3 }),
      decide(open, { 'new-wallets-client': 2 }),
      decide(open, { 'new-wallets': 20 }),
    ].map(({ refusal }) => refusal && newWalletRefusalReason(refusal));
    expect(reasons).toEqual(['payout_quota', 'client_limit', 'gateway_ceiling']);
  });
});
